import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idsOfText, idsText, passIdsOf } from '../../src/store/pass-references.js';

// Unit level: the text a partition's state keeps the ids other streams fetch by in.
describe('the ids of a pass kept as one text', () => {
  it('come back as they went in, in their order, any ids without a line break', () => {
    fc.assert(
      fc.property(fc.array(fc.string().filter((id) => !id.includes('\n'))), (ids) => {
        const text = idsText(ids);
        expect(text).toBeDefined();
        // One empty id alone is kept as the empty text, which reads back as no ids: never made
        // (ids are distinct record values), and then read from the rows like any unknown.
        if (!(ids.length === 1 && ids[0] === '')) expect(idsOfText(text!)).toEqual(ids);
      }),
    );
  });

  it('are refused when an id holds a line break', () => {
    expect(idsText(['a', 'b\nc'])).toBeUndefined();
    expect(passIdsOf({ 'goods.id': ['a', 'b\nc'] })).toBeUndefined();
  });

  it('are read from a state as texts, or as the arrays states kept before', () => {
    expect(passIdsOf({ 'goods.id': 'a\nb', 'client.id': '' })).toEqual({
      'goods.id': 'a\nb',
      'client.id': '',
    });
    expect(passIdsOf({ 'goods.id': ['a', 'b'], 'client.id': [] })).toEqual({
      'goods.id': 'a\nb',
      'client.id': '',
    });
    expect(passIdsOf({ 'goods.id': [1, 2] })).toBeUndefined();
    expect(passIdsOf(null)).toBeUndefined();
    expect(passIdsOf('a')).toBeUndefined();
  });
});
