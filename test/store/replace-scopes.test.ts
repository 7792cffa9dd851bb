import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { MassDeleteError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/store.js';
import { later, now } from './records.js';
import { dialects } from './store-fixture.js';

const line = (id: string, amount = 10) => ({ id, description: `line ${id}`, quantity: 1, amount });
const lines = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => line(`${prefix}-${i}`));

describe.each(dialects)('replaceScopes on $name', ({ fixture: createFixture }) => {
  const fixture = createFixture();
  let store: Store;

  beforeEach(async () => {
    store = await fixture.open();
    return () => store.close();
  });
  afterAll(() => fixture.cleanup());

  const replace = (
    scopes: Array<{ scope: string; records: unknown[] }>,
    options: { dryRun?: boolean } = {},
  ) => store.replaceScopes({ stream: 'invoice_lines', scopes, now: later, runId: null, ...options });

  it("replaces many scopes in one call: each scope's unlisted rows are marked missing, other scopes untouched", async () => {
    await replace([
      { scope: 'inv1', records: lines('a', 3) },
      { scope: 'inv2', records: lines('b', 2) },
      { scope: 'inv3', records: lines('c', 2) },
    ]);
    const result = await replace([
      { scope: 'inv1', records: [line('a-0', 99), line('a-1')] },
      { scope: 'inv2', records: [...lines('b', 2), line('b-9')] },
    ]);
    expect(result).toEqual({
      inserted: 1,
      updated: 1,
      unchanged: 3,
      staleSkipped: 0,
      rejected: 0,
      deleted: 1,
    });
    const gone = await store.readRows('invoice_lines', { live: false });
    expect(gone.map((row) => [row.scope, row.id, row.deletedReason])).toEqual([
      ['inv1', 'a-2', 'snapshot_missing'],
    ]);
    expect(await store.countRows('invoice_lines', { scope: 'inv3', live: true })).toBe(2);
  });

  it('tells scopes apart: an id seen under one parent does not keep the same id alive under another', async () => {
    await replace([
      { scope: 'inv1', records: [line('shared'), line('a')] },
      { scope: 'inv2', records: [line('shared'), line('b')] },
    ]);
    const result = await replace([
      { scope: 'inv1', records: [line('shared'), line('a')] },
      { scope: 'inv2', records: [line('b')] },
    ]);
    expect(result.deleted).toBe(1);
    const gone = await store.readRows('invoice_lines', { live: false });
    expect(gone.map((row) => [row.scope, row.id])).toEqual([['inv2', 'shared']]);
  });

  it('keeps the key of a rejected record as seen, so it is not marked missing', async () => {
    await replace([{ scope: 'inv1', records: lines('a', 2) }]);
    const result = await store.replaceScopes({
      stream: 'invoice_lines',
      scopes: [
        {
          scope: 'inv1',
          records: [line('a-0')],
          rejected: [{ key: 'a-1', reason: '/amount: bad', data: {} }],
        },
      ],
      now,
      runId: null,
    });
    expect(result.deleted).toBe(0);
    expect(result.rejected).toBe(1);
  });

  it('stops the whole batch, committing nothing, when one scope would lose an implausible share', async () => {
    await replace([
      { scope: 'inv1', records: lines('a', 40) },
      { scope: 'inv2', records: lines('b', 2) },
    ]);
    const batch = replace([
      { scope: 'inv2', records: [...lines('b', 2), line('b-new')] },
      { scope: 'inv1', records: lines('a', 1) },
    ]);
    await expect(batch).rejects.toBeInstanceOf(MassDeleteError);
    expect(await store.countRows('invoice_lines', { live: true })).toBe(42);
  });

  it('in a dry run counts the same and writes nothing', async () => {
    await replace([{ scope: 'inv1', records: lines('a', 3) }]);
    const result = await replace([{ scope: 'inv1', records: [line('a-0', 5), line('a-new')] }], {
      dryRun: true,
    });
    expect(result).toMatchObject({ inserted: 1, updated: 1, deleted: 2 });
    const rows = await store.readRows('invoice_lines', { live: true });
    expect(rows.map((row) => row.id).sort()).toEqual(['a-0', 'a-1', 'a-2']);
  });
});
