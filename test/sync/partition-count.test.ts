import type { KyselyPlugin, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { commitRecords } from '../store/run-pages.js';
import { describeOnEachDialect } from '../support/on-each-dialect.js';
import { type SyncSetup, startSyncSetup } from '../support/sync-setup.js';

/** Counts the rows every query of the store returns. */
function rowCounter(): KyselyPlugin & { rows: number } {
  return {
    rows: 0,
    transformQuery: (args) => args.node,
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      this.rows += args.result.rows.length;
      return args.result;
    },
  };
}

/** Other operators' partitions: a state and a finished run each for every per-operator stream. */
const otherOperators = 300;
const perOperator = ['tasks', 'rides', 'planning', 'goods', 'settings', 'dossier_folders'];

describeOnEachDialect('work per partition', (fixture) => {
  const counter = rowCounter();
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

  it('reads the same rows for one partition run whether the store holds a few partitions or thousands', async () => {
    await setup.engine.run(['tasks', 'goods', 'settings']);
    const few = { goods: await rowsOfOneRun('goods'), settings: await rowsOfOneRun('settings') };
    for (let operator = 2000; operator < 2000 + otherOperators; operator++) {
      for (const stream of perOperator) {
        const partition = String(operator);
        const page = { scope: partition, records: [], state: { strategyState: { lastPassAt: 'x' } } };
        await commitRecords(store, stream, page, { partition, trigger: 'schedule' });
      }
    }
    expect((await store.lastRuns()).length).toBeGreaterThan(otherOperators * perOperator.length);
    expect({ goods: await rowsOfOneRun('goods'), settings: await rowsOfOneRun('settings') }).toEqual(few);
  }, 120_000);
});
