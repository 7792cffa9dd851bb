import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemSlices } from '../../src/store/item-slices.js';

const path = ['data', 'items'];

function slicesOf(text: string): string[] | undefined {
  const items = (JSON.parse(text) as { data: { items: unknown[] } }).data.items;
  const slices = itemSlices(text, path, items.length);
  if (!slices) return undefined;
  return items.map((_, i) => text.slice(slices[i * 2], slices[i * 2 + 1]));
}

/** Records whose strings hold quotes, backslashes, brackets and any unicode, as keys and values. */
const record = fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue({ depthSize: 'small' }), {
  maxKeys: 6,
});
const envelopeValue = fc.jsonValue({ depthSize: 'small' });
/** Whitespace a TMS may put between the envelope's tokens. */
const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n  ');

describe('itemSlices', () => {
  it('cuts every compact record exactly where JSON.stringify wrote it, whatever the envelope holds', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 8 }),
        fc.array(fc.tuple(fc.string(), envelopeValue), { maxLength: 3 }),
        fc.array(space, { minLength: 6, maxLength: 6 }),
        (items, extras, [s0, s1, s2, s3, s4, s5]) => {
          const others = extras
            // A key spelt with an escape beside the path's keys is refused (the next test).
            .filter(([key]) => key !== 'data' && key !== 'items' && !JSON.stringify(key).includes('\\'))
            .map(([key, value]) => `${JSON.stringify(key)}:${s1}${JSON.stringify(value)},${s2}`)
            .join('');
          const list = items.map((item) => JSON.stringify(item)).join(`${s3},${s4}`);
          const text = `${s0}{${others}"data"${s1}:${s2}{${others}"items":${s5}[${s3}${list}${s4}]}}${s5}`;
          expect(slicesOf(text)).toEqual(items.map((item) => JSON.stringify(item)));
        },
      ),
    );
  });

  it('never gives a slice that reads otherwise than JSON.parse read the record', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 6 }),
        fc.integer({ min: 0, max: 2 }),
        fc.boolean(),
        (items, indent, twice) => {
          const envelope = `{"data":{"items":${JSON.stringify(items, null, indent)}}}`;
          const text = twice ? `{"data":{"items":[{}]},${envelope.slice(1)}` : envelope;
          const slices = slicesOf(text);
          if (slices === undefined) return;
          const parsed = (JSON.parse(text) as { data: { items: unknown[] } }).data.items;
          expect(slices.map((slice) => JSON.parse(slice))).toEqual(parsed);
          expect(slices.every((slice) => !/\s/.test(slice.replace(/"(?:[^"\\]|\\.)*"/g, '')))).toBe(true);
        },
      ),
    );
  });

  it('refuses what it cannot cut as JSON.parse read it', () => {
    const refused = (text: string, count?: number) =>
      itemSlices(text, path, count ?? (JSON.parse(text) as { data: { items: unknown[] } }).data.items.length);
    // a key on the path twice, or spelt with an escape (JSON.parse keeps the last)
    expect(refused('{"data":{"items":[{"a":1}]},"data":{"items":[{"a":2}]}}')).toBeUndefined();
    expect(refused('{"data":{"items":[{"a":1}],"items":[{"a":2}]}}')).toBeUndefined();
    expect(refused('{"data":{"items":[{"a":1}]},"d\\u0061ta":{"items":[{"a":2}]}}')).toBeUndefined();
    // whitespace in a record, an item that is no object, another count
    expect(refused('{"data":{"items":[{"a": 1}]}}')).toBeUndefined();
    expect(refused('{"data":{"items":[{"a":1},2]}}', 2)).toBeUndefined();
    expect(refused('{"data":{"items":[{"a":1}]}}', 2)).toBeUndefined();
    // nested deeper than SQLite's JSON functions read
    const deep = `${'{"n":'.repeat(1001)}1${'}'.repeat(1001)}`;
    expect(refused(`{"data":{"items":[${deep}]}}`)).toBeUndefined();
    const fine = `${'{"n":'.repeat(999)}1${'}'.repeat(999)}`;
    expect(refused(`{"data":{"items":[${fine}]}}`)).toEqual(new Int32Array([18, 18 + fine.length]));
  });
});
