import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idsOfText, idsText, passIdsOf } from '../../src/store/pass-references.js';

// Unit level: the text a partition's state keeps the ids other streams fetch by in.
describe('the ids of a pass kept as one text', () => {
  it('come back as they went in, in their order, any ids without a line break', () => {
    fc.assert(
      fc.property(fc.array(fc.string().filter((id) => !id.includes('\n'))), (ids) => {
        const text = idsText(ids);
        // One empty id alone would read back as no ids: refused, then read from the rows.
        if (ids.length === 1 && ids[0] === '') expect(text).toBeUndefined();
        else expect(idsOfText(text!)).toEqual(ids);
      }),
    );
  });

  it('are refused when an id holds a line break', () => {
    expect(idsText(['a', 'b\nc'])).toBeUndefined();
    expect(idsText([''])).toBeUndefined();
    expect(idsOfText(idsText(['', 'a'])!)).toEqual(['', 'a']);
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
