import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

// A run's small writes (its `sync_runs` row) run on the calling thread's own connection while the
// SQLite thread is idle (sqlite-thread.ts). Another process may hold the file's write lock then:
// the call must wait for it on the SQLite thread, never stop the event loop, and then succeed.
let dir: string | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ticks = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("a run's row written while another connection holds the write lock waits for it without stopping the event loop", async () => {
  dir = mkdtempSync(join(tmpdir(), 'tms-writes-here-'));
  const path = join(dir, 'store.sqlite');
  store = await openStore(`sqlite:${path}`);
  await store.lastRuns();
  await ticks(1000); // the SQLite thread is up: writes may now run here

  const other = new BetterSqlite3(path);
  other.exec('begin immediate');
  let opened = false;
  const opening = store.openRun({ stream: 'invoices', partition: '', trigger: 'cli' }).then((run) => {
    opened = true;
    return run;
  });
  // The event loop keeps turning while the lock is held (busy_timeout is 5 s: a write waiting
  // on this thread would stall it that long).
  let turns = 0;
  const turning = setInterval(() => turns++, 10);
  await ticks(300);
  clearInterval(turning);
  expect(turns).toBeGreaterThan(5);
  expect(opened).toBe(false);
  other.exec('commit');
  other.close();

  const run = await opening;
  expect(run.runId).not.toBeNull();
  await run.finish({ result: 'succeeded', error: null });
  expect(await store.lastRuns()).toMatchObject([{ stream: 'invoices', result: 'succeeded', id: run.runId }]);
});
