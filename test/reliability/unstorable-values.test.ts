import { expect, it } from 'vitest';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import { StoreRefusedError } from '../../src/store/store-errors.js';
import { commitRecords, stateOf } from '../store/run-pages.js';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

// A value PostgreSQL's jsonb and text cannot hold (U+0000) must not block a
// stream for good; what no store can hold fails its page clearly and for good, naming the record.

describeOnEachDialect('values a store column cannot hold', (fixture) => {
  const { store, setup } = useSyncSetup(fixture, { invoices: 60 });

  async function twoInvoices(): Promise<[string, string]> {
    expect((await setup().engine.runPartition('invoices', '')).result).toBe('succeeded');
    const records = (await setup().admin.truth('invoices')).invoices?.['']?.records ?? [];
    const [a, b] = records.map((record) => String((record as { id: unknown }).id));
    return [a!, b!];
  }

  it('stores a record holding U+0000 exactly as received: data keeps it, its text column is NULL with drift', async () => {
    const [withNul, withText] = await twoInvoices();
    await setup().admin.setOverride('invoices', withNul, {
      note: 'before\u0000after',
      'odd\u0000name': { inner: ['x\u0000', 1] },
    });
    // Not U+0000: the six characters of its escape, which must stay text.
    await setup().admin.setOverride('invoices', withText, { note: 'a literal \\u0000 is only text' });

    const run = await setup().engine.runPartition('invoices', '');
    expect(run.result).toBe('succeeded');
    expect(run.drift).toBeGreaterThanOrEqual(1);
    expect(await differencesFromTruth(store(), await setup().admin.truth('invoices'), ['invoices'])).toEqual(
      [],
    );
    const rows = await store().readRows('invoices');
    const byId = (id: string) => rows.find((row) => row.id === id)!;
    expect(byId(withNul).data).toMatchObject({
      note: 'before\u0000after',
      'odd\u0000name': { inner: ['x\u0000', 1] },
    });
    expect(byId(withNul).columns.note).toBeNull();
    expect(byId(withText).columns.note).toBe('a literal \\u0000 is only text');

    // How `data` holds it, on both dialects alike: the record's JSON text as a JSON string.
    const url = await fixture.url();
    const typeOf = fixture.dialect === 'postgres' ? 'jsonb_typeof(data)' : 'json_type(data)';
    const param = fixture.dialect === 'postgres' ? '$1' : '?';
    const kinds = async (id: string) =>
      (
        await fixture.query<{ kind: string }>(
          url,
          `select ${typeOf} as kind from invoices where id = ${param}`,
          [id],
        )
      )[0]?.kind;
    expect(await kinds(withNul)).toBe(fixture.dialect === 'postgres' ? 'string' : 'text');
    expect(await kinds(withText)).toBe('object');
  });

  it('fails the page of a record whose key holds U+0000, naming it, for good, committing nothing of it', async () => {
    const [bad] = await twoInvoices();
    const before = await stateOf(store(), 'invoices', '');
    await setup().admin.setOverride('invoices', bad, { id: 'bad\u0000key' });
    const run = await setup().engine.runPartition('invoices', '');
    expect(run.result).toBe('failed');
    expect(run.error).toMatch(/has no usable key: 'id' holds the character U\+0000/);
    expect((run.cause as { retry: { kind: string } }).retry.kind).toBe('permanent');
    expect(await stateOf(store(), 'invoices', '')).toEqual(before);
  });

  it('fails a write the database refuses for what it holds as permanent, naming the page', async () => {
    // The engine never sends such a key; a direct caller of the store can.
    const write = commitRecords(store(), 'invoices', {
      records: [{ key: 'k\u0000ey', sequence: 1, data: { id: 'k\u0000ey' } }],
    });
    if (fixture.dialect === 'sqlite') {
      // SQLite's text holds U+0000: nothing to refuse.
      await expect(write).resolves.toMatchObject({ inserted: 1 });
      return;
    }
    const refused = await write.then(
      () => expect.fail('PostgreSQL took a key holding U+0000'),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StoreRefusedError);
    expect(refused).toMatchObject({ code: 'STORE_REFUSED', retry: { kind: 'permanent' } });
    expect(String((refused as Error).message)).toMatch(
      /the database refused the page of invoices with 1 records \(keys k.ey\): \[22P05\]/,
    );
  });
});
