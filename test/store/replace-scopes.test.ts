import { expect, it } from 'vitest';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { keyed, later } from './records.js';
import { inRun } from './run-pages.js';

const line = (id: string, amount = 10) => ({ id, description: `line ${id}`, quantity: 1, amount });
const lines = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => line(`${prefix}-${i}`));

type Scopes = Array<{ scope: string; records: object[] }>;
const replacements = (scopes: Scopes) =>
  scopes.map(({ scope, records }) => ({ scope, records: keyed(records) }));

describeOnEachDialect('a child run replaces scopes', (fixture) => {
  const store = useStore(fixture);

  /** One batch of child scopes replaced in a run of its own; answers the run's counts. */
  const replace = (scopes: Scopes, options: { dryRun?: boolean } = {}) =>
    inRun(store(), 'invoice_lines', (run) => run.replaceScopes(replacements(scopes)), {
      now: later,
      ...options,
    });
  const lastRunId = async () => (await store().listRuns({ stream: 'invoice_lines', limit: 1 }))[0]!.id;

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
    expect(result).toMatchObject({
      pages: 2,
      records: 5,
      inserted: 1,
      updated: 1,
      unchanged: 3,
      older: 0,
      drift: 0,
      deleted: 1,
      held: 0,
    });
    const gone = await store().readRows('invoice_lines', { live: false });
    expect(gone.map((row) => [row.scope, row.id, row.deletedReason])).toEqual([
      ['inv1', 'a-2', 'snapshot_missing'],
    ]);
    expect(await store().countRows('invoice_lines', { scope: 'inv3', live: true })).toBe(2);
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
    const gone = await store().readRows('invoice_lines', { live: false });
    expect(gone.map((row) => [row.scope, row.id])).toEqual([['inv2', 'shared']]);
  });

  it('lines replaced wholesale on many parents are no mass delete: every old line goes, the new ones come', async () => {
    const parents = Array.from({ length: 50 }, (_, i) => `inv${i}`);
    await replace(parents.map((scope) => ({ scope, records: lines(`${scope}-old`, 15) })));
    const result = await replace(parents.map((scope) => ({ scope, records: lines(`${scope}-new`, 3) })));
    expect(result).toMatchObject({ inserted: 150, deleted: 750, held: 0 });
    expect(await store().countRows('invoice_lines', { live: true })).toBe(150);
    expect(await store().heldDeletes()).toEqual([]);
  });

  it('holds back the emptied scopes of a batch where most parents lost every child, and nothing else', async () => {
    const parents = Array.from({ length: 20 }, (_, i) => `inv${i}`);
    await replace(parents.map((scope) => ({ scope, records: lines(scope, 3) })));
    const batch = parents.map((scope, i) => ({
      scope,
      records: i < 15 ? [] : [...lines(scope, 2), line(`${scope}-new`)],
    }));
    const result = await replace(batch);
    expect(result).toMatchObject({ inserted: 5, deleted: 5, held: 45 });
    expect(await store().countRows('invoice_lines', { live: true })).toBe(60);
    const held = await store().heldDeletes('invoice_lines');
    expect(held.map((entry) => entry.scope).sort()).toEqual(parents.slice(0, 15).sort());
    expect(held[0]).toMatchObject({
      reason: 'snapshot_missing',
      wouldDelete: 3,
      liveBefore: 3,
      liveAfter: 0,
      runId: await lastRunId(),
    });
  });

  it('judges the emptied scopes over the whole run when its commits come in small groups', async () => {
    const parents = Array.from({ length: 20 }, (_, i) => `inv${i}`);
    await replace(parents.map((scope) => ({ scope, records: lines(scope, 3) })));
    // Groups of four, as parents' children arrive: no group alone empties guardMinScopes (10) scopes.
    const counts = await inRun(
      store(),
      'invoice_lines',
      async (run) => {
        for (let first = 0; first < parents.length; first += 4) {
          const group = parents.slice(first, first + 4).map((scope, i) => ({
            scope,
            records: first + i < 15 ? [] : lines(scope, 3),
          }));
          await run.replaceScopes(replacements(group));
        }
      },
      { now: later },
    );
    // Once the run's tally passes the guard, every later emptied scope is held.
    const held = counts.held;
    expect(held).toBeGreaterThan(0);
    const heldScopes = (await store().heldDeletes('invoice_lines')).map((entry) => entry.scope);
    expect(heldScopes.length).toBe(held / 3);
    expect(await store().countRows('invoice_lines', { live: true })).toBe(15 + held);
  });

  it('applies an approved held scope on its next refresh, which approval queues', async () => {
    const parents = Array.from({ length: 12 }, (_, i) => `inv${i}`);
    await replace(parents.map((scope) => ({ scope, records: lines(scope, 2) })));
    await replace(parents.map((scope) => ({ scope, records: [] })));
    expect(await store().heldDeletes('invoice_lines')).toHaveLength(12);
    expect(await store().approveDeletes({ stream: 'invoice_lines', scopes: ['inv0'] })).toEqual(['inv0']);
    expect(await store().pendingChildWork()).toMatchObject([{ stream: 'invoice_lines', queuedParents: 1 }]);
    const result = await replace(parents.map((scope) => ({ scope, records: [] })));
    expect(result).toMatchObject({ deleted: 2, held: 22 });
    const held = (await store().heldDeletes('invoice_lines')).map((entry) => entry.scope);
    expect(held).toHaveLength(11);
    expect(held).not.toContain('inv0');
  });

  it('judges a large scope on its own: one that would keep a sliver of its rows is held', async () => {
    await replace([
      { scope: 'inv1', records: lines('a', 140) },
      { scope: 'inv2', records: lines('b', 2) },
    ]);
    const result = await replace([
      { scope: 'inv2', records: [...lines('b', 2), line('b-new')] },
      { scope: 'inv1', records: lines('a', 10) },
    ]);
    expect(result).toMatchObject({ inserted: 1, deleted: 0, held: 130 });
    expect(await store().countRows('invoice_lines', { live: true })).toBe(143);
  });

  it('in a dry run counts the same and writes nothing', async () => {
    await replace([{ scope: 'inv1', records: lines('a', 3) }]);
    const result = await replace([{ scope: 'inv1', records: [line('a-0', 5), line('a-new')] }], {
      dryRun: true,
    });
    expect(result).toMatchObject({ inserted: 1, updated: 1, deleted: 2 });
    const rows = await store().readRows('invoice_lines', { live: true });
    expect(rows.map((row) => row.id).sort()).toEqual(['a-0', 'a-1', 'a-2']);
  });
});
