import { expect, it } from 'vitest';
import type { JsonObject } from '../../schemas/json-object.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { keyed, now } from './records.js';
import { commitRecords } from './run-pages.js';

/** What JSON.parse reads from an answer: the records of `data.items`. */
function parsedItems(text: string): JsonObject[] {
  return (JSON.parse(text) as { data: { items: JsonObject[] } }).data.items;
}

describeOnEachDialect('a page written with the answer its records were parsed from', (fixture) => {
  const store = useStore(fixture);

  const writeAnswer = (text: string, records = parsedItems(text)) =>
    commitRecords(
      store(),
      'invoices',
      { records: keyed(records), received: { text, path: ['data', 'items'] } },
      { now },
    );

  const storedData = async () =>
    Object.fromEntries((await store().readRows('invoices')).map((row) => [row.id, row.data]));

  const storedText = async (id: string) => {
    const [row] = await fixture.query<{ data: string }>(
      await fixture.url(),
      `select data from invoices where id = '${id}'`,
    );
    return row!.data;
  };

  it('stores every record as JSON.parse read it, and on SQLite as the TMS wrote it', async () => {
    const a = '{"id":"a","sequence":1,"net":1.50,"name":"Caf\\u00e9","big":12345678901234567890}';
    const b = '{"id":"b","sequence":2,"lines":[{"qty":2},[],null],"note":"tab\\tslash\\/ \\"q\\" {["}';
    const text = `{ "data" : { "hasMore": false, "items" : [\n  ${a} ,\n  ${b}\n] } }`;
    const result = await writeAnswer(text);
    expect(result).toMatchObject({ inserted: 2, updated: 0 });
    expect(await storedData()).toEqual({ a: parsedItems(text)[0], b: parsedItems(text)[1] });
    if (fixture.dialect === 'sqlite') {
      // Not serialized again: numbers and escapes as received.
      expect(await storedText('a')).toBe(a);
      expect(await storedText('b')).toBe(b);
    }
    expect(await writeAnswer(text)).toMatchObject({ unchanged: 2 });
  });

  it('a record holding whitespace between its tokens is serialized again, compact', async () => {
    const text = '{"data":{"items":[{"id":"a","sequence":1},{ "id": "b", "sequence": 2, "net": 1.50 }]}}';
    expect(await writeAnswer(text)).toMatchObject({ inserted: 2 });
    expect(await storedData()).toEqual({ a: parsedItems(text)[0], b: parsedItems(text)[1] });
    if (fixture.dialect === 'sqlite') {
      expect(await storedText('a')).toBe('{"id":"a","sequence":1}');
      expect(await storedText('b')).toBe('{"id":"b","sequence":2,"net":1.5}');
    }
  });

  // JSON.parse reads both as `data` and keeps the last; a JSON path would find the first.
  it.each(['data', 'd\\u0061ta'])(
    'a key on the way to the items given twice (the second spelt %s): the records JSON.parse read are stored',
    async (second) => {
      const text =
        '{"data":{"items":[{"id":"a","sequence":1,"v":"first"},{"id":"b","sequence":2,"v":"first"}]},' +
        `"${second}":{"items":[{"id":"a","sequence":1,"v":"last"},{"id":"b","sequence":2,"v":"last"}]}}`;
      expect(await writeAnswer(text)).toMatchObject({ inserted: 2 });
      expect(parsedItems(text).map((item) => item.v)).toEqual(['last', 'last']);
      expect(await storedData()).toEqual({ a: parsedItems(text)[0], b: parsedItems(text)[1] });
    },
  );

  it('a page listing a key twice keeps the record of the higher sequence', async () => {
    const text =
      '{"data":{"items":[{"id":"a","sequence":2,"v":"new"},{"id":"b","sequence":1},' +
      '{"id":"a","sequence":1,"v":"old"}]}}';
    expect(await writeAnswer(text)).toMatchObject({ inserted: 2 });
    expect((await storedData()).a).toEqual({ id: 'a', sequence: 2, v: 'new' });
  });

  it('a record nested deeper than SQLite reads JSON is serialized again', async () => {
    const levels = 1_500;
    const deep = `${'{"n":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const text = `{"data":{"items":[{"id":"a","sequence":1},{"id":"b","sequence":2,"deep":${deep}}]}}`;
    expect(await writeAnswer(text)).toMatchObject({ inserted: 2 });
    expect(await storedData()).toEqual({ a: parsedItems(text)[0], b: parsedItems(text)[1] });
  });

  it('a record holding U+0000 is stored as its JSON text, on a page of records that do not', async () => {
    const text = '{"data":{"items":[{"id":"a","sequence":1},{"id":"b","sequence":2,"note":"x\\u0000y"}]}}';
    expect(await writeAnswer(text)).toMatchObject({ inserted: 2 });
    expect(await storedData()).toEqual({ a: parsedItems(text)[0], b: parsedItems(text)[1] });
    if (fixture.dialect === 'sqlite') {
      expect(await storedText('a')).toBe('{"id":"a","sequence":1}');
      expect(await storedText('b')).toBe(JSON.stringify('{"id":"b","sequence":2,"note":"x\\u0000y"}'));
    }
  });
});
