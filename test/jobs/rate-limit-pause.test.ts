import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { queueKeyPrefix } from '../../jobs/sync-queue.js';
import { createSimAdminClient, type SimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { openStore } from '../../src/store/open-store.js';
import { eventually, type QueueFixture, queueFixture } from './support/queue-fixture.js';
import { type CliProcess, killAll, spawnWorker, workerEnv } from './support/worker-process.js';

// A 429's Retry-After holds every worker of the fleet off for as long as it says
// (also past BullMQ's own 30 s cap), and no job loses its lock meanwhile.

let sim: SimHandle;
let admin: SimAdminClient;
let fixture: QueueFixture;
let dir: string;
let env: NodeJS.ProcessEnv;
const processes: CliProcess[] = [];

beforeEach(async () => {
  sim = await startSim({ invoices: 120, clients: 30, operators: 1, seed: 3 });
  admin = createSimAdminClient({ url: sim.url });
  dir = mkdtempSync(join(tmpdir(), 'tms-pause-'));
  fixture = queueFixture({ WORKER_LOCK_MS: '2000' });
  env = workerEnv({ simUrl: sim.url, dir, queue: fixture, pageLimit: 50 });
});

afterEach(async () => {
  await killAll(processes);
  // The fleet's pause lives under the budget's own prefix: remove it with the queue's keys.
  const pauses = await fixture.redis.keys(`tms-sync:budget:pause:${sim.url}#*`);
  if (pauses.length > 0) await fixture.redis.del(...pauses);
  await fixture.cleanup();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function worker(extra: NodeJS.ProcessEnv = {}) {
  const started = await spawnWorker({ ...env, ...extra });
  processes.push(started);
  return started;
}

const sent = async () =>
  Object.values(await admin.requests())
    .flatMap((byStatus) => Object.values(byStatus))
    .reduce((sum, count) => sum + count, 0);

/** When a delayed job is due, from its score in the delayed set (timestamp * 0x1000 + counter). */
async function dueAt(jobId: string): Promise<number> {
  const score = await fixture.redis.zscore(`${queueKeyPrefix(fixture.settings.worker)}:delayed`, jobId);
  return Math.floor(Number(score) / 0x1000);
}

const lockTrouble = (process: CliProcess) =>
  process.lines.filter((line) => /worker error|Missing lock|could not renew lock|stalled/i.test(line));

describe("the fleet waits out a 429's Retry-After", () => {
  it('holds every worker off for a Retry-After past 30 s: no request, no job taken, no lock lost', async () => {
    const retryAfterSeconds = 33;
    const workers = [
      await worker({ TMS_REQUEST_CEILING_SECONDS: '1' }),
      await worker({ TMS_REQUEST_CEILING_SECONDS: '1' }),
    ];
    // Each worker logs in as it starts; the 429 is for the first run's request.
    await eventually(async () => (await sent()) >= 2, 15_000, 'the logins at start');
    const before = await sent();
    await admin.setFaults({ rateLimited: 1, retryAfterSeconds });
    const first = await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
    await eventually(async () => (await sent()) >= before + 1, 15_000, 'the first request');
    const refusedAt = Date.now();
    expect(await sent()).toBe(before + 1);
    await admin.setFaults({});
    const others = [
      await enqueueRun(fixture.queue, { stream: 'clients', partition: '', trigger: 'manual' }),
      await enqueueRun(fixture.queue, { stream: 'addressbook', partition: '', trigger: 'manual' }),
    ];
    const jobs = [first, ...others].map((run) => run.jobId);
    await eventually(
      async () => {
        const states = await Promise.all(jobs.map((id) => fixture.queue.getJobState(id)));
        return states.every((state) => state === 'delayed');
      },
      10_000,
      'every job delayed',
    );
    // Every job waits delayed (no lock to lose) until the pause the TMS asked for ends, whichever
    // worker took it; nothing reached the TMS meanwhile, although it answers again.
    for (const id of jobs) {
      expect(await dueAt(id)).toBeGreaterThanOrEqual(refusedAt + retryAfterSeconds * 1000 - 1500);
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await sent()).toBe(before + 1);
    expect(await fixture.queue.getJobCounts('active')).toEqual({ active: 0 });

    await eventually(async () => (await sent()) > before + 1, 45_000, 'the next request');
    expect(Date.now() - refusedAt).toBeGreaterThanOrEqual(retryAfterSeconds * 1000 - 1500);
    for (const id of jobs) {
      await eventually(async () => (await fixture.queue.getJobState(id)) === 'completed', 20_000, id);
      // The successful run is the only attempt counted: waiting cost none.
      expect((await fixture.queue.getJob(id))?.attemptsMade).toBe(1);
    }
    expect(workers.flatMap(lockTrouble)).toEqual([]);
    const store = await openStore(env.STORE_URL!);
    try {
      const runs = await store.listRuns({ limit: 100 });
      // One run failed on the 429; no other run started before the pause ended. (Child streams
      // that follow a parent may run too once it succeeds; they count among the later runs.)
      const failed = runs.filter((run) => run.result === 'failed');
      expect(failed).toHaveLength(1);
      const later = runs.filter((run) => run !== failed[0]);
      for (const run of later) {
        expect(run.startedAt.getTime()).toBeGreaterThanOrEqual(refusedAt + retryAfterSeconds * 1000 - 1500);
      }
      const succeeded = later.filter((run) => run.result === 'succeeded').map((run) => run.stream);
      expect(succeeded).toEqual(expect.arrayContaining(['invoices', 'clients', 'addressbook']));
      expect(later.filter((run) => run.result === 'failed')).toEqual([]);
    } finally {
      await store.close();
    }
  }, 90_000);

  it('keeps the job lock of a run that waits out a short Retry-After within its ceiling', async () => {
    const workers = [await worker(), await worker()];
    await eventually(async () => (await sent()) >= 2, 15_000, 'the logins at start');
    const before = await sent();
    await admin.setFaults({ rateLimited: 1, retryAfterSeconds: 4 });
    const run = await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
    await eventually(async () => (await sent()) >= before + 1, 15_000, 'the first request');
    await admin.setFaults({});
    await eventually(
      async () => (await fixture.queue.getJobState(run.jobId)) === 'completed',
      20_000,
      'the job',
    );
    expect((await fixture.queue.getJob(run.jobId))?.attemptsMade).toBe(1);
    expect(workers.flatMap(lockTrouble)).toEqual([]);
    const store = await openStore(env.STORE_URL!);
    try {
      // The run waited the 4 s (twice the lock period) inside the client and was never taken over.
      const runs = await store.listRuns({ stream: 'invoices', limit: 10 });
      expect(runs.map((item) => item.result)).toEqual(['succeeded']);
    } finally {
      await store.close();
    }
  }, 40_000);
});
