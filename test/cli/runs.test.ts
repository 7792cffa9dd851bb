import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { RunResult } from '../../src/store/store.js';
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
