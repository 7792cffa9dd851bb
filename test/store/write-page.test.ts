import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { StateConflictError, StreamUsageError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/store.js';
import { invoice, later, now, sequenceOf, task } from './records.js';
import { dialects } from './store-fixture.js';

describe.each(dialects)('writePage on $name', ({ fixture: createFixture }) => {
  const fixture = createFixture();
  let store: Store;

  beforeEach(async () => {
    store = await fixture.open();
    return () => store.close();
  });
  afterAll(() => fixture.cleanup());

  const write = (records: unknown[], extra: Partial<Parameters<Store['writePage']>[0]> = {}) =>
    store.writePage({ stream: 'invoices', records, sequenceOf, now, runId: null, ...extra });

  it('inserts new rows and counts them', async () => {
    const result = await write([invoice('a', 1), invoice('b', 2)]);
    expect(result).toMatchObject({ inserted: 2, updated: 0, unchanged: 0, staleSkipped: 0, rejected: 0 });
    const rows = await store.readRows('invoices');
    expect(rows.map((r) => [r.id, r.sequence, r.deletedAt])).toEqual([
      ['a', 1, null],
      ['b', 2, null],
    ]);
    expect(rows[0]!.data).toEqual(invoice('a', 1));
  });

  it('a row is never overwritten by an older sequence', async () => {
    await write([invoice('a', 10, { number: 'new' })]);
    const result = await write([invoice('a', 9, { number: 'old' })], { now: later });
    expect(result).toMatchObject({ inserted: 0, updated: 0, staleSkipped: 1 });
    const [row] = await store.readRows('invoices');
    expect(row).toMatchObject({ sequence: 10, columns: expect.objectContaining({ number: 'new' }) });
    expect(row!.syncedAt).toEqual(now);
  });

  it('an equal or higher sequence wins', async () => {
    await write([invoice('a', 10), invoice('b', 10)]);
    const result = await write([
      invoice('a', 10, { number: 'same-seq' }),
      invoice('b', 11, { number: 'newer' }),
    ]);
    expect(result).toMatchObject({ updated: 2 });
    const rows = await store.readRows('invoices');
    expect(rows.map((r) => r.columns.number)).toEqual(['same-seq', 'newer']);
  });

  it('null sequences: the last write wins', async () => {
    await write([invoice('a', 5)]);
    await store.writePage({
      stream: 'invoices',
      records: [invoice('a', 1, { number: 'x' })],
      now,
      runId: null,
    });
    const [row] = await store.readRows('invoices');
    expect(row).toMatchObject({ sequence: null, columns: expect.objectContaining({ number: 'x' }) });
  });

  it('unchanged rows are not rewritten (synced_at kept)', async () => {
    await write([invoice('a', 1), invoice('b', 2)]);
    const result = await write([invoice('a', 1), invoice('b', 3)], { now: later });
    expect(result).toMatchObject({ inserted: 0, updated: 1, unchanged: 1, staleSkipped: 0 });
    const rows = await store.readRows('invoices');
    expect(rows.map((r) => r.syncedAt)).toEqual([now, later]);
  });

  it('soft deletes set deleted_at with reason upstream', async () => {
    await write([invoice('a', 1), invoice('b', 2)]);
    const result = await write([invoice('a', 3, { status: 'deleted' }), invoice('c', 4)], {
      deletedUpstream: true,
      now: later,
    });
    expect(result).toMatchObject({ inserted: 1, updated: 1 });
    const rows = await store.readRows('invoices');
    expect(rows.map((r) => [r.id, r.deletedReason, r.deletedAt])).toEqual([
      ['a', 'upstream', later],
      ['b', null, null],
      ['c', 'upstream', later],
    ]);
    const again = await write([invoice('a', 3, { status: 'deleted' })], { deletedUpstream: true });
    expect(again).toMatchObject({ unchanged: 1 });
    expect(await store.countRows('invoices', { live: true })).toBe(1);
  });

  it('a row that reappears upstream is restored', async () => {
    await write([invoice('a', 1)], { deletedUpstream: true });
    const result = await write([invoice('a', 2)], { now: later });
    expect(result).toMatchObject({ updated: 1 });
    const [row] = await store.readRows('invoices');
    expect(row).toMatchObject({ deletedAt: null, deletedReason: null, sequence: 2 });
  });

  it('keeps one row per key when a page lists a key twice, the highest sequence', async () => {
    const result = await write([
      invoice('a', 2, { number: 'two' }),
      invoice('a', 5, { number: 'five' }),
      invoice('a', 3),
    ]);
    expect(result).toMatchObject({ inserted: 1 });
    const [row] = await store.readRows('invoices');
    expect(row).toMatchObject({ sequence: 5, columns: expect.objectContaining({ number: 'five' }) });
  });

  it('the watermark is never ahead of the data (a failing page leaves neither rows nor state)', async () => {
    const first = await write([invoice('a', 1)], {
      state: { stream: 'invoices', expectedVersion: 0, cursor: 'p1' },
    });
    expect(first.state).toMatchObject({ version: 1, cursor: 'p1', watermark: null });
    const failing = write([invoice('b', 2)], {
      rejected: [{ key: 'x', reason: 'bad', data: { id: 'x' } }],
      state: { stream: 'invoices', expectedVersion: 0, watermark: 2 },
    });
    await expect(failing).rejects.toBeInstanceOf(StateConflictError);
    expect((await store.readRows('invoices')).map((r) => r.id)).toEqual(['a']);
    expect(await store.readState('invoices')).toMatchObject({ version: 1, watermark: null, cursor: 'p1' });
  });

  it('rejected records roll back with their page', async () => {
    const runId = await store.startRun({ stream: 'invoices', trigger: 'cli' });
    const rejected = [{ key: 'r1', reason: 'schema: status', data: { id: 'r1', status: 42 } }];
    await write([invoice('a', 1)], { runId, rejected });
    await expect(
      write([invoice('b', 1)], { runId, rejected, state: { stream: 'invoices', expectedVersion: 7 } }),
    ).rejects.toBeInstanceOf(StateConflictError);
    const rows = await fixture.query<{ record_key: string; reason: string; data: string }>(
      await fixture.url(),
      'select record_key, reason, data from rejected_records',
    );
    expect(rows).toEqual([{ record_key: 'r1', reason: 'schema: status', data: '{"id":"r1","status":42}' }]);
  });

  it('rejects records without a usable key instead of failing the page', async () => {
    const result = await write([invoice('a', 1), { number: 'no id' }, invoice('b', -1)]);
    expect(result).toMatchObject({ inserted: 1, rejected: 2 });
  });

  it('preview writes nothing and reports the same counts', async () => {
    await write([invoice('a', 1), invoice('b', 5)]);
    const page = [invoice('a', 2), invoice('b', 4), invoice('c', 1)];
    const state = { stream: 'invoices', expectedVersion: 0, watermark: 9 };
    const preview = await store.previewPage({
      stream: 'invoices',
      records: page,
      sequenceOf,
      now: later,
      runId: null,
      state,
    });
    expect(preview).toMatchObject({
      inserted: 1,
      updated: 1,
      staleSkipped: 1,
      unchanged: 0,
      state: { watermark: 9 },
    });
    expect((await store.readRows('invoices')).map((r) => [r.id, r.sequence])).toEqual([
      ['a', 1],
      ['b', 5],
    ]);
    expect(await store.readState('invoices')).toMatchObject({ version: 0 });
    const written = await store.writePage({
      stream: 'invoices',
      records: page,
      sequenceOf,
      now: later,
      runId: null,
      state,
    });
    expect(written).toEqual(preview);
  });

  it('typed columns are extracted (timestamps, booleans, nested paths, nulls, arrays ignored)', async () => {
    await store.writePage({
      stream: 'tasks',
      scope: 'op1',
      now,
      runId: null,
      records: [
        task('t1', {
          planned: { start: '2024-05-01T10:00:00+02:00', end: null },
          address: { city: 'Gent', country: { code: 'BE' }, location: { latitude: 51.05, longitude: 3.72 } },
          client: [{ id: 'c1' }],
          cashOnDelivery: 'not a number',
          index: 2 ** 40,
        }),
      ],
    });
    await store.writePage({
      stream: 'packaging',
      now,
      runId: null,
      records: [
        { id: 'p1', name: 'Pallet', isCarrier: true },
        { id: 'p2', isCarrier: false },
      ],
    });
    const [t1] = await store.readRows('tasks', { scope: 'op1' });
    expect(t1!.scope).toBe('op1');
    expect(t1!.columns).toMatchObject({
      planned_start: '2024-05-01T08:00:00.000Z',
      planned_end: null,
      address_city: 'Gent',
      address_country_code: 'BE',
      address_latitude: 51.05,
      client_id: null,
      cash_on_delivery: null,
      task_index: null,
      status: 'notStarted',
    });
    const packaging = await store.readRows('packaging');
    expect(packaging.map((r) => r.columns)).toEqual([
      { name: 'Pallet', code: null, is_carrier: true },
      { name: null, code: null, is_carrier: false },
    ]);
  });

  it('scopes rows: the same id in two scopes is two rows, and a scope is required', async () => {
    await store.writePage({ stream: 'tasks', scope: 'op1', records: [task('t1')], now, runId: null });
    await store.writePage({ stream: 'tasks', scope: 'op2', records: [task('t1')], now, runId: null });
    expect(await store.countRows('tasks')).toBe(2);
    expect(await store.countRows('tasks', { scope: 'op2' })).toBe(1);
    await expect(
      store.writePage({ stream: 'tasks', records: [task('t1')], now, runId: null }),
    ).rejects.toBeInstanceOf(StreamUsageError);
    await expect(store.writePage({ stream: 'nope', records: [], now, runId: null })).rejects.toBeInstanceOf(
      StreamUsageError,
    );
  });

  it('any sequence of page writes ends with each row holding its highest-sequence record', async () => {
    const pageArb = fc.array(
      fc.record({
        id: fc.constantFrom('a', 'b', 'c', 'd'),
        sequence: fc.integer({ min: 1, max: 1_000_000 }),
        tag: fc.string({ maxLength: 3 }),
      }),
      { maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(pageArb, { minLength: 1, maxLength: 6 }), async (pages) => {
        await fixture.query(await fixture.url(), 'delete from invoices');
        const best = new Map<string, { sequence: number; tag: string }>();
        for (const page of pages) {
          await write(page.map((r) => invoice(r.id, r.sequence, { number: r.tag })));
          for (const r of page) if (r.sequence >= (best.get(r.id)?.sequence ?? 0)) best.set(r.id, r);
        }
        const rows = await store.readRows('invoices');
        expect(rows.map((r) => [r.id, r.sequence])).toEqual(
          [...best].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, r]) => [id, r.sequence]),
        );
        for (const row of rows) expect(row.columns.number).toBe(best.get(row.id)!.tag);
      }),
      { numRuns: 40 },
    );
  });
});
