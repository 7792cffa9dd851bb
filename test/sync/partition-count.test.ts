import type { KyselyPlugin, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { scenarioVariants } from '../reliability/convergence/scenario.js';
import { commitRecords } from '../store/run-pages.js';
import { statementCounter } from '../store/statement-counter.js';
import { describeOnEachDialect } from '../support/on-each-dialect.js';
import { type SyncSetup, startSyncSetup } from '../support/sync-setup.js';

/** Other operators' partitions: a state and a finished run each for every per-operator stream. */
const otherOperators = 300;
const perOperator = ['tasks', 'rides', 'planning', 'goods', 'settings', 'dossier_folders'];

describeOnEachDialect('work per partition', (fixture) => {
  const counter = statementCounter();
  let store: Store;
  let setup: SyncSetup;
  beforeEach(async () => {
    store = await openStore(await fixture.freshUrl(), { plugins: [counter] });
    setup = await startSyncSetup(store, { operators: 1, invoices: 20, clients: 5 });
  });
  afterEach(async () => {
    await setup.close();
    await store.close();
  });

  const rowsOfOneRun = async (stream: 'goods' | 'settings') => {
    counter.rows = 0;
    const summary = await setup.engine.runPartition(stream, '1001');
    expect(summary.result).toBe('succeeded');
    return counter.rows;
  };
  // The same partitions as a plan (`sync goods/1001 settings/1001`): its reads (plan-reads.ts) are
  // of the planned partitions only, never of the stream's others.
  const rowsOfAPlan = async () => {
    counter.rows = 0;
    const summaries = await setup.engine.run(['goods/1001', 'settings/1001']);
    expect(summaries.map((summary) => summary.result)).toEqual(['succeeded', 'succeeded']);
    return counter.rows;
  };

  it('reads the same rows for one partition run whether the store holds a few partitions or thousands', async () => {
    await setup.engine.run(['tasks', 'goods', 'settings']);
    // Once its upstream partition committed, a store asks no more (`Store.everCommitted`): warm.
    await rowsOfOneRun('goods');
    const few = {
      goods: await rowsOfOneRun('goods'),
      settings: await rowsOfOneRun('settings'),
      plan: await rowsOfAPlan(),
    };
    for (let operator = 2000; operator < 2000 + otherOperators; operator++) {
      for (const stream of perOperator) {
        const partition = String(operator);
        const page = { scope: partition, records: [], state: { strategyState: { lastPassAt: 'x' } } };
        await commitRecords(store, stream, page, { partition, trigger: 'schedule' });
      }
    }
    expect((await store.lastRuns()).length).toBeGreaterThan(otherOperators * perOperator.length);
    expect({
      goods: await rowsOfOneRun('goods'),
      settings: await rowsOfOneRun('settings'),
      plan: await rowsOfAPlan(),
    }).toEqual(few);
  }, 120_000);
});

describeOnEachDialect('work per partition of a plan', (fixture) => {
  const counter = statementCounter();
  const streams = ['tasks', 'goods', 'settings', 'planning'];

  /** The statements of a second sync of every operator's partitions of `streams`, nothing changed. */
  const idleStatements = async (operators: number) => {
    const store = await openStore(await fixture.freshUrl(), { plugins: [counter] });
    const setup = await startSyncSetup(store, { operators, invoices: 5, clients: 5 });
    try {
      const first = await setup.engine.run(streams);
      expect(first.every((summary) => summary.result === 'succeeded')).toBe(true);
      counter.statements = 0;
      const idle = await setup.engine.run(streams);
      expect(idle.map((summary) => summary.result)).toEqual(first.map(() => 'succeeded'));
      expect(idle.reduce((sum, summary) => sum + summary.inserted + summary.updated, 0)).toBe(0);
      return { partitions: idle.length, statements: counter.statements };
    } finally {
      await setup.close();
      await store.close();
    }
  };

  // Each run's state, its dependency's state and its scope's live rows come from reads made once
  // per stream (plan-reads.ts): what is left per partition is its run's row, written a turn of the
  // event loop at a time with others, and on PostgreSQL the statements of its pages (a kept pass's
  // state-only commit, one statement; SQLite sends a page as one message to its thread, which no
  // plugin sees). Keyed reads made 3.3 statements a partition here, pages left out.
  it('adds a bounded number of statements per partition to an idle cycle, however many operators', async () => {
    const few = await idleStatements(4);
    const many = await idleStatements(40);
    expect([few.partitions, many.partitions]).toEqual([16, 160]);
    const perPartition = (many.statements - few.statements) / (many.partitions - few.partitions);
    expect(perPartition).toBeLessThan(fixture.dialect === 'postgres' ? 4 : 2);
  }, 180_000);
});

/** Counts the settled checks the store runs: the statement answering a scope's `missing` rows. */
function settledCounter(): KyselyPlugin & { checks: number } {
  return {
    checks: 0,
    transformQuery: (args) => args.node,
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (args.result.rows[0] && 'missing' in args.result.rows[0]) this.checks += 1;
      return args.result;
    },
  };
}

// Against tms-sim's default and its other record shapes, sequence fields, ids, envelopes and tokens.
describe.each(scenarioVariants)('against %s', (_label, variant) => {
  describeOnEachDialect('the passes of a plan over empty scopes', (fixture) => {
    // A backfill's snapshot runs each found their scope empty in the plan's read (plan-reads.ts):
    // only a partition's run writes its scope, and only rows of its pass, so none can be missing.
    it('are not checked for missing rows; a scope holding a row its list lacks is, and the row is marked', async () => {
      const counter = settledCounter();
      const url = await fixture.freshUrl();
      const store = await openStore(url, { plugins: [counter] });
      const setup = await startSyncSetup(store, { operators: 3, invoices: 5, clients: 5, variant });
      try {
        const first = await setup.engine.run(['tasks']);
        expect(first.map((summary) => summary.result)).toEqual(['succeeded', 'succeeded', 'succeeded']);
        expect(first.every((summary) => summary.inserted > 0)).toBe(true);
        expect(counter.checks).toBe(0);

        const operator = setup.settings.operators[0]!;
        const ghost = { key: 'ghost-1', sequence: null, data: { id: 'ghost-1', operator_id: operator } };
        await commitRecords(store, 'tasks', { scope: operator, records: [ghost] }, { partition: operator });
        const again = await setup.engine.run([`tasks/${operator}`]);
        expect(again[0]).toMatchObject({ result: 'succeeded', deleted: 1 });
        expect(counter.checks).toBe(1);
        const [row] = await fixture.query<{ deleted_reason: string | null }>(
          url,
          "select deleted_reason from tasks where id = 'ghost-1'",
        );
        expect(row?.deleted_reason).toBe('snapshot_missing');
      } finally {
        await setup.close();
        await store.close();
      }
    }, 120_000);
  });
});
