import { afterEach, expect, it } from 'vitest';
import type { StreamDefinition } from '../../config/stream-definition.js';
import { openStore } from '../../src/store/open-store.js';
import type { PartitionRun, Store, StoredVersion } from '../../src/store/store.js';
import { describeOnEachDialect } from '../support/on-each-dialect.js';
import { invoice, keyed } from './records.js';
import { inRun, type TestPage, type TestRunOptions } from './run-pages.js';

/** Page times after the test switched history on (a row written before the switch opens at the switch). */
const base = Date.now() + 3_600_000;
const at = (hours: number) => new Date(base + hours * 3_600_000);
const now = at(0);
const later = at(24);

/** Each version's end is the next one's start, and only the last is open. */
function expectContiguous(versions: readonly StoredVersion[]): void {
  versions.forEach((version, index) => {
    const next = versions[index + 1];
    if (next) expect(version.validTo?.toISOString()).toBe(next.validFrom.toISOString());
    else expect(version.validTo).toBeNull();
  });
}

/** `work` in a run of its own at the given time; answers the run's id. */
async function runOf(
  store: Store,
  stream: string,
  work: (run: PartitionRun) => Promise<void>,
  options: TestRunOptions = {},
): Promise<number> {
  let opened: PartitionRun | undefined;
  await inRun(
    store,
    stream,
    async (run) => {
      opened = run;
      await work(run);
    },
    options,
  );
  return opened?.runId ?? 0;
}

/** One page in a run of its own at the given time; answers the run's id. */
function writeRun(
  store: Store,
  stream: string,
  page: TestPage,
  options: TestRunOptions = {},
): Promise<number> {
  return runOf(store, stream, (run) => run.commitPage({ state: { strategyState: null }, ...page }), options);
}

describeOnEachDialect('history mode', (fixture) => {
  const opened: Store[] = [];
  const open = async (url: string, history: readonly string[] | undefined) => {
    const store = await openStore(url, history === undefined ? {} : { history });
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  it('writes a version for each change of content, none for a rewrite, and tells the run that saw it', async () => {
    const store = await open(await fixture.freshUrl(), ['invoices']);
    const write = (records: object[], hours: number) =>
      writeRun(store, 'invoices', { records: keyed(records) }, { now: at(hours) });
    const inserted = await write([invoice('a', 1)], 0);
    await write([invoice('a', 1)], 1); // same content, same sequence: untouched
    // A new sequence with the same content rewrites the row (synced_at moves), and is no version.
    const rewrite = [{ key: 'a', sequence: 2, data: invoice('a', 1) as never }];
    await writeRun(store, 'invoices', { records: rewrite }, { now: at(2) });
    const paid = await write([invoice('a', 3, { status: 'paid' })], 3);
    const gone = (run: PartitionRun) => run.markMissing({ seenIds: [], reason: 'reconcile_missing' });
    const deleted = await runOf(store, 'invoices', gone, { now: at(4) });
    const restored = await write([invoice('a', 4, { status: 'paid' })], 5);

    const versions = await store.history('invoices', { id: 'a' });
    expect(
      versions.map((v) => [
        v.change,
        v.run,
        v.validFrom.toISOString(),
        (v.data as { status: string }).status,
      ]),
    ).toEqual([
      ['insert', inserted, at(0).toISOString(), 'finalized'],
      ['update', paid, at(3).toISOString(), 'paid'],
      ['delete', deleted, at(4).toISOString(), 'paid'],
      ['restore', restored, at(5).toISOString(), 'paid'],
    ]);
    expect(versions[2]!.deletedReason).toBe('reconcile_missing');
    expect(versions[0]!.sequence).toBe(2);
    expect(versions[0]!.validTo?.toISOString()).toBe(at(3).toISOString());
    expect(versions[0]!.columns.modified_at).toBe('2024-05-01T10:00:00.000Z');
    expectContiguous(versions);
    const [current] = await store.readRows('invoices');
    expect(versions.at(-1)!.data).toEqual(current!.data);
  });

  it('a dry run and a stale record write no version', async () => {
    const store = await open(await fixture.freshUrl(), ['invoices']);
    await writeRun(store, 'invoices', { records: keyed([invoice('a', 5)]) }, { now });
    const paid = { records: keyed([invoice('a', 6, { status: 'paid' })]) };
    await writeRun(store, 'invoices', paid, { now: later, dryRun: true });
    await writeRun(
      store,
      'invoices',
      { records: keyed([invoice('a', 4, { status: 'void' })]) },
      { now: later },
    );
    expect((await store.history('invoices', { id: 'a' })).map((v) => v.change)).toEqual(['insert']);
  });

  it('a column a later page adds reaches the versions, and the earlier versions hold null in it', async () => {
    const store = await open(await fixture.freshUrl(), ['invoices']);
    await writeRun(store, 'invoices', { records: keyed([invoice('a', 1)]) }, { now });
    await writeRun(
      store,
      'invoices',
      { records: keyed([{ ...invoice('a', 2), paidAmount: 12.5 }]) },
      { now: later },
    );
    await writeRun(
      store,
      'invoices',
      { records: keyed([{ ...invoice('a', 3), paidAmount: 20 }]) },
      { now: at(30) },
    );
    const versions = await store.history('invoices', { id: 'a' });
    expect(versions.map((v) => v.columns.paid_amount)).toEqual([null, 12.5, 20]);
    expectContiguous(versions);
  });

  it('child scopes replaced by a parent change close and open versions per child row', async () => {
    const store = await open(await fixture.freshUrl(), ['invoice_lines']);
    const line = (id: string, amount: number) => ({ id, amount, description: `line ${id}` });
    const replace = (lines: object[], hours: number) =>
      runOf(store, 'invoice_lines', (run) => run.replaceScopes([{ scope: 'inv-1', records: keyed(lines) }]), {
        now: at(hours),
      });
    const first = await replace([line('1', 10), line('2', 20)], 0);
    const second = await replace([line('1', 11), line('3', 30)], 1);
    const one = await store.history('invoice_lines', { id: '1', scope: 'inv-1' });
    const two = await store.history('invoice_lines', { id: '2', scope: 'inv-1' });
    const three = await store.history('invoice_lines', { id: '3', scope: 'inv-1' });
    expect(one.map((v) => [v.change, v.run])).toEqual([
      ['insert', first],
      ['update', second],
    ]);
    expect(two.map((v) => [v.change, v.deletedReason])).toEqual([
      ['insert', null],
      ['delete', 'snapshot_missing'],
    ]);
    expect(three.map((v) => v.change)).toEqual(['insert']);
    for (const versions of [one, two]) expectContiguous(versions);
  });

  it('switched on over stored rows, history starts there; switched off, every version is closed and kept', async () => {
    const url = await fixture.freshUrl();
    const before = await open(url, []);
    await writeRun(before, 'invoices', { records: keyed([invoice('a', 1), invoice('b', 1)]) }, { now });
    await before.close();
    opened.splice(0);

    const switchedOn = new Date();
    const on = await open(url, ['invoices']);
    const seeded = await on.history('invoices', { id: 'a' });
    expect(seeded).toHaveLength(1);
    expect(seeded[0]).toMatchObject({ change: 'insert', run: null, validTo: null });
    expect(seeded[0]!.validFrom.getTime()).toBeGreaterThanOrEqual(switchedOn.getTime() - 1000);
    const changed = new Date(Date.now() + 60_000);
    await writeRun(
      on,
      'invoices',
      { records: keyed([invoice('a', 2, { status: 'paid' })]) },
      { now: changed },
    );
    await on.close();
    opened.splice(0);

    const off = await open(url, []);
    const kept = await off.history('invoices', { id: 'a' });
    expect(kept.map((v) => v.change)).toEqual(['insert', 'update']);
    expect(kept[0]!.validTo?.toISOString()).toBe(kept[1]!.validFrom.toISOString());
    expect(kept[1]!.validTo).not.toBeNull();
    const void_ = { records: keyed([invoice('a', 3, { status: 'void' })]) };
    await writeRun(off, 'invoices', void_, { now: new Date(Date.now() + 120_000) });
    expect(await off.history('invoices', { id: 'a' })).toHaveLength(2);
  });

  it("a catalogue's new column reaches the versions too: the open version holds it, filled from data, the closed ones null", async () => {
    const url = await fixture.freshUrl();
    const notes = {
      strategy: 'sequence',
      description: 'notes',
      path: '/n',
      softDeletes: false,
      key: { field: 'id' },
      columns: { title: { type: 'text', path: 'title' } },
    } satisfies StreamDefinition;
    const first = await openStore(url, { catalogue: { notes }, history: ['notes'] });
    opened.push(first);
    const note = (title: string, priority: number) => ({ id: 'n1', title, meta: { priority } });
    await writeRun(first, 'notes', { records: keyed([note('a', 1)]) }, { now });
    await writeRun(first, 'notes', { records: keyed([note('b', 2)]) }, { now: later });
    const grown = {
      notes: {
        ...notes,
        columns: { ...notes.columns, priority: { type: 'integer', path: 'meta.priority' } },
      },
    } satisfies Record<string, StreamDefinition>;
    const after = await openStore(url, { catalogue: grown, history: ['notes'] });
    opened.push(after);
    const versions = await after.history('notes', { id: 'n1' });
    expect(versions.map((v) => [v.columns.title, v.columns.priority])).toEqual([
      ['a', null],
      ['b', 2],
    ]);
    await writeRun(after, 'notes', { records: keyed([note('c', 3)]) }, { now: at(48) });
    const again = await after.history('notes', { id: 'n1' });
    expect(again.map((v) => [v.columns.title, v.columns.priority])).toEqual([
      ['a', null],
      ['b', 2],
      ['c', 3],
    ]);
    expectContiguous(again);
  });

  it('the "as of" query of the README answers each invoice as it was at the moment asked', async () => {
    const url = await fixture.freshUrl();
    const store = await open(url, ['invoices']);
    const write = (records: object[], hours: number) =>
      writeRun(store, 'invoices', { records: keyed(records) }, { now: at(hours) });
    await write([invoice('a', 1, { status: 'draft' }), invoice('b', 1)], 0);
    await write([invoice('a', 2, { status: 'finalized' })], 10);
    const seen = ['a'];
    await inRun(store, 'invoices', (run) => run.markMissing({ seenIds: seen, reason: 'reconcile_missing' }), {
      now: at(20),
    });
    const literal = (moment: Date) =>
      fixture.dialect === 'sqlite' ? `'${moment.toISOString()}'` : `timestamptz '${moment.toISOString()}'`;
    const asOf = async (moment: Date) => {
      const t = literal(moment);
      const rows = await fixture.query<{ id: string; status: string }>(
        url,
        `SELECT id, status FROM invoices__history WHERE valid_from <= ${t} AND (valid_to IS NULL OR valid_to > ${t}) AND deleted_at IS NULL ORDER BY id`,
      );
      return rows.map((row) => `${row.id}:${row.status}`);
    };
    expect(await asOf(at(5))).toEqual(['a:draft', 'b:finalized']);
    expect(await asOf(at(10))).toEqual(['a:finalized', 'b:finalized']);
    expect(await asOf(at(25))).toEqual(['a:finalized']);
    const index =
      fixture.dialect === 'sqlite'
        ? "SELECT sql FROM sqlite_master WHERE name = 'invoices__asof'"
        : "SELECT indexdef AS sql FROM pg_indexes WHERE indexname = 'invoices__asof'";
    expect((await fixture.query<{ sql: string }>(url, index))[0]!.sql).toMatch(/\("?id"?, "?valid_from"?\)/);
  });

  it('a stream whose history was never on is refused by name', async () => {
    const store = await open(await fixture.freshUrl(), undefined);
    await expect(store.history('invoices', { id: 'a' })).rejects.toThrow(/history mode was never on/);
  });
});
