import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSim } from '../../src/sim/start-sim.js';
import { openStore } from '../../src/store/open-store.js';
import type { RunResult, SyncRun } from '../../src/store/store.js';
import { runCli } from '../reliability/support/run-cli.js';
import { dialects } from '../store/store-fixture.js';
import { recordRun as recordRunOf } from '../support/record-run.js';

// `tms-sync runs`, the run history of sync_runs without writing SQL.

describe.each(dialects)('tms-sync runs on $name', ({ fixture: makeFixture }) => {
  const fixture = makeFixture();

  it('shows the runs newest first, of a stream or partition, the failed ones with their whole error', async () => {
    try {
      const url = await fixture.freshUrl();
      const store = await openStore(url);
      const recordRun = (
        label: string,
        result: Exclude<RunResult, 'running'>,
        error: string | null = null,
      ) => {
        const startedAt = new Date();
        const finishedAt = new Date(startedAt.getTime() + 90_000);
        const counts = { pages: 2, inserted: 1200, updated: 34, deleted: 5 };
        return recordRunOf(store, fixture, url, { label, result, error, startedAt, finishedAt, counts });
      };
      const error = `HttpStatusError: GET /client/clients/ answered 500 (5 attempts): ${'upstream trouble; '.repeat(8)}END`;
      await recordRun('invoices', 'succeeded');
      await recordRun('clients', 'failed', error);
      await recordRun('tasks/1001', 'interrupted', 'stopped');
      await recordRun('tasks/1002', 'succeeded');
      await store.close();
      const env = { STORE_URL: url };

      const all = await runCli(['runs'], env);
      expect(all.code).toBe(0);
      const lines = all.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(
        /^id\s+stream\s+trigger\s+started\s+took\s+result\s+pages\s+written\s+deleted$/,
      );
      expect(
        lines
          .slice(1)
          .filter((line) => !line.startsWith(' '))
          .map((line) => line.split(/\s+/)[1]),
      ).toEqual(['tasks/1002', 'tasks/1001', 'clients', 'invoices']);
      expect(all.stdout).toMatch(/^\d+\s+invoices\s+schedule\s+\S+\s+1m 30s\s+succeeded\s+2\s+1,234\s+5$/m);
      const shown = lines.filter((line) => line.startsWith('    ')).map((line) => line.trim());
      expect(shown.join(' ')).toBe(`stopped ${error}`);

      const failed = await runCli(['runs', '--failed'], env);
      expect(failed.stdout).toMatch(/^\d+\s+clients\s+schedule/m);
      expect(failed.stdout).not.toMatch(/invoices|tasks/);
      const partition = JSON.parse((await runCli(['runs', 'tasks/1001', '--json'], env)).stdout);
      expect(partition).toMatchObject([{ stream: 'tasks', partition: '1001', result: 'interrupted' }]);
      const unknown = await runCli(['runs', 'invoces'], env);
      expect(unknown.code).toBe(2);
    } finally {
      await fixture.cleanup();
    }
  }, 60_000);
});

describe('a sync and the run history (sync.keepRunsDays)', () => {
  const fixture = dialects[0]!.fixture();

  it('forgets the runs older than sync.keepRunsDays (default 7) as it runs, keeping each partition its latest run and success', async () => {
    const sim = await startSim({ invoices: 5, clients: 3, operators: 0 });
    const dir = mkdtempSync(join(tmpdir(), 'tms-runs-kept-'));
    try {
      const url = await fixture.freshUrl();
      const store = await openStore(url);
      const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
      for (const [label, days, result] of [
        ['invoices', 60, 'succeeded'],
        ['invoices', 50, 'succeeded'],
        ['clients', 60, 'succeeded'],
        ['clients', 55, 'failed'],
      ] as const)
        await recordRunOf(store, fixture, url, { label, result, startedAt: daysAgo(days) });
      await store.close();
      const env = {
        STORE_URL: url,
        TMS_BASE_URL: sim.url,
        TMS_API_TOKEN: sim.options.apiToken,
        LOG_LEVEL: 'silent',
      };
      const oldRuns = async () => {
        const runs = JSON.parse(
          (await runCli(['runs', '--json', '--limit', '100'], env)).stdout,
        ) as SyncRun[];
        return runs
          .filter((run) => Date.parse(String(run.startedAt)) < daysAgo(7).getTime())
          .map((run) => `${run.stream}:${run.result}`);
      };
      const config = join(dir, 'keep-all.json');
      writeFileSync(config, JSON.stringify({ sync: { keepRunsDays: 0 } }));

      expect((await runCli(['sync', 'invoices'], { ...env, TMS_SYNC_CONFIG: config })).code).toBe(0);
      expect(await oldRuns()).toHaveLength(4);
      expect((await runCli(['sync', 'invoices'], env)).code).toBe(0);
      // The clients' latest run (failed) and latest success stay, however old; the invoices' go.
      expect(await oldRuns()).toEqual(['clients:failed', 'clients:succeeded']);
    } finally {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
      await fixture.cleanup();
    }
  }, 60_000);
});
