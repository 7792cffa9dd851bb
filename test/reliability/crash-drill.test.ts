import { describe, expect, it } from 'vitest';
import { testRedisUrl } from '../jobs/support/queue-fixture.js';
import { runCrashDrill } from './crash/crash-drill.js';

/** Partitions syncing at once in the drill (invoices and clients, each live and deleted): one kill stops each. */
const partitions = 4;

describe('crash drill (quick profile of `npm run crash-drill`)', () => {
  it('loses nothing when the worker is killed with SIGKILL during a backfill and during incremental runs', async () => {
    const report = await runCrashDrill({
      invoices: 3000,
      clients: 3000,
      backfillKills: 3,
      incrementalKills: 2,
      changesPerRound: 300,
      killDelayMs: { backfill: [100, 400], incremental: [0, 100] },
      // 60 pages of 30 ms each per partition: at least 1.8 s, more than three kills' 0.4 s can
      // let it advance, so the backfill cannot end before its kills land.
      pageLimit: 50,
      latencyMs: 30,
      seed: 7,
      redisUrl: testRedisUrl,
      log: () => undefined,
    });
    for (const { stream, rows, differences } of report.streams) {
      expect(differences, stream).toEqual([]);
      expect(rows).toBeGreaterThan(2000);
    }
    const [backfill, incremental] = report.phases;
    expect(backfill!.kills).toBe(3);
    expect(incremental!.kills).toBe(2);
    for (const phase of report.phases) {
      // Per kill, each running partition fetches again at most the page being written, the one
      // prepared behind it, the one on the wire, and the first page of the catch-up cycle that
      // follows a resume.
      expect(phase.pagesFetched - phase.pagesUninterrupted).toBeLessThanOrEqual(phase.kills * partitions * 4);
      expect(phase.pagesFetched).toBeGreaterThanOrEqual(phase.pagesUninterrupted);
    }
  }, 240_000);
});
