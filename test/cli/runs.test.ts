import { describe, expect, it } from 'vitest';
import { openStoreVerbs } from '../../src/store/open-store.js';
import type { RunResult, StoreVerbs } from '../../src/store/store.js';
import { runCli } from '../reliability/support/run-cli.js';
import { dialects } from '../store/store-fixture.js';

// Issue #32, item 8: `tms-sync runs`, the run history of sync_runs without writing SQL.

async function recordRun(store: StoreVerbs, label: string, result: RunResult, error: string | null = null) {
  const [stream, partition = ''] = label.split('/');
  const now = new Date();
  const runId = await store.startRun({ stream: stream!, partition, trigger: 'schedule', now });
  const counts = { pages: 2, inserted: 1200, updated: 34, deleted: 5, drift: 0, held: 0 };
  await store.finishRun(runId, { ...counts, result, error, now: new Date(now.getTime() + 90_000) } as never);
}

describe.each(dialects)('tms-sync runs on $name', ({ fixture: makeFixture }) => {
  const fixture = makeFixture();

  it('shows the runs newest first, of a stream or partition, the failed ones with their whole error', async () => {
    try {
      const url = await fixture.freshUrl();
      const store = await openStoreVerbs(url);
      const error = `HttpStatusError: GET /client/clients/ answered 500 (5 attempts): ${'upstream trouble; '.repeat(8)}END`;
      await recordRun(store, 'invoices', 'succeeded');
      await recordRun(store, 'clients', 'failed', error);
      await recordRun(store, 'tasks/1001', 'interrupted', 'stopped');
      await recordRun(store, 'tasks/1002', 'succeeded');
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
