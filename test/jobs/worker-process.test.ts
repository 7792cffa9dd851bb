import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { jobNames, type SyncJobProgress } from '../../jobs/sync-job.js';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { openStore } from '../../src/store/open-store.js';
import type { SyncRun } from '../../src/store/store.js';
import { dialects } from '../store/store-fixture.js';
import { eventually, type QueueFixture, queueFixture } from './support/queue-fixture.js';
import {
  type CliProcess,
  exitWithin,
  killAll,
  spawnCli,
  spawnWorker,
  workerEnv,
} from './support/worker-process.js';

let sim: SimHandle;
let fixture: QueueFixture;
let dir: string;
let env: NodeJS.ProcessEnv;
const processes: CliProcess[] = [];
const pageLimit = 50;

beforeEach(async () => {
  sim = await startSim({ invoices: 600, clients: 40, operators: 1, seed: 7 });
  dir = mkdtempSync(join(tmpdir(), 'tms-worker-'));
  fixture = queueFixture({ WORKER_LOCK_MS: '2000' });
  env = workerEnv({ simUrl: sim.url, dir, queue: fixture, pageLimit: pageLimit });
});

afterEach(async () => {
  await killAll(processes);
  await fixture.cleanup();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function worker(extra: NodeJS.ProcessEnv = {}) {
  const started = await spawnWorker({ ...env, ...extra });
  processes.push(started);
  return started;
}

async function readStore<T>(read: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> {
  const store = await openStore(env.STORE_URL);
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

const liveInvoices = async () =>
  (await createSimAdminClient({ url: sim.url }).truth('invoices')).invoices?.['']?.records.length;
const invoiceRuns = () => readStore((store) => store.listRuns({ stream: 'invoices', limit: 100 }));

async function startedInvoicesJob(minPages: number) {
  const run = await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
  await eventually(
    async () => {
      const progress = (await fixture.queue.getJob(run.jobId))?.progress as SyncJobProgress | undefined;
      return (progress?.pages ?? 0) >= minPages;
    },
    15_000,
    `${minPages} committed pages`,
  );
  return run;
}

async function completed(jobId: string, timeoutMs: number) {
  await eventually(
    async () => (await fixture.queue.getJobState(jobId)) === 'completed',
    timeoutMs,
    `job ${jobId} completed`,
  );
}

describe('worker processes against the simulator', () => {
  it('trigger --wait syncs through a worker process, and /metrics counts the TMS responses', async () => {
    const running = await worker();
    const triggered = spawnCli(['trigger', 'invoices', 'clients', '--wait', '--timeout', '30'], env);
    processes.push(triggered);
    expect(await exitWithin(triggered, 40_000)).toBe(0);
    expect(triggered.lines.join('\n')).toMatch(/invoices\s+succeeded/);
    expect(await readStore((store) => store.countRows('invoices', { live: true }))).toBe(
      await liveInvoices(),
    );
    const runs = await invoiceRuns();
    expect(runs.every((run) => run.trigger === 'manual' && run.result === 'succeeded')).toBe(true);
    const metrics = await (await fetch(`${running.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/tms_sync_http_requests_total\{status="200"\} [1-9]/);
    expect(metrics).toMatch(/tms_sync_records_upserted_total\{stream="invoices"\} [1-9]/);
    expect(metrics).toMatch(/tms_sync_tms_sends_total [1-9]/);
    expect(metrics).toMatch(/tms_sync_tms_concurrency_limit [1-9]/);
    expect(metrics).toMatch(/tms_sync_tms_breaker_open 0/);
    expect(metrics).toMatch(/tms_sync_tms_budget_wait_seconds_total \d/);
  });

  it('syncs into PostgreSQL the same way', async () => {
    const postgres = dialects.find((dialect) => dialect.name === 'postgres')!.fixture();
    try {
      env.STORE_URL = await postgres.freshUrl();
      await worker();
      const triggered = spawnCli(['trigger', 'invoices', '--wait', '--timeout', '30'], env);
      processes.push(triggered);
      expect(await exitWithin(triggered, 40_000)).toBe(0);
      expect(await readStore((store) => store.countRows('invoices', { live: true }))).toBe(
        await liveInvoices(),
      );
    } finally {
      for (const process of processes.splice(0)) {
        process.child.kill('SIGKILL');
        await process.exited;
      }
      await postgres.cleanup();
    }
  });

  it('stops on SIGTERM mid-backfill with exit 0, the run logged and recorded as interrupted, and a restarted worker finishes from the checkpoint', async () => {
    await createSimAdminClient({ url: sim.url }).setFaults({ latencyMs: 150 });
    const first = await worker();
    const run = await startedInvoicesJob(2);
    first.child.kill('SIGTERM');
    expect(await exitWithin(first, 10_000)).toBe(0);
    expect(await fixture.queue.getJobState(run.jobId)).toBe('delayed');
    await createSimAdminClient({ url: sim.url }).setFaults({ latencyMs: 0 });
    await worker();
    await completed(run.jobId, 20_000);
    expect(await readStore((store) => store.countRows('invoices', { live: true }))).toBe(
      await liveInvoices(),
    );
    const runs = (await invoiceRuns()).filter((item) => item.partition === '').reverse();
    expect(runs.map((item) => item.result)).toEqual(['interrupted', 'succeeded']);
    expect(runs[0]!.pages).toBeGreaterThanOrEqual(2);
    // A graceful stop is no failure: the interrupted run is logged at info (30), nothing at error.
    const logged = first.lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(logged.find((line) => line.msg.startsWith('run interrupted'))?.level).toBe(30);
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
    await expectResumed(runs[1]!);
  });

  it('lets a second worker finish from the checkpoint when the first is killed with SIGKILL', async () => {
    await createSimAdminClient({ url: sim.url }).setFaults({ latencyMs: 150 });
    const workers = [await worker(), await worker()];
    const run = await startedInvoicesJob(2);
    const processedBy = (await fixture.queue.getJob(run.jobId))?.processedBy ?? '';
    const running = workers.find((item) => processedBy.endsWith(`:${item.child.pid}`))!;
    running.child.kill('SIGKILL');
    await createSimAdminClient({ url: sim.url }).setFaults({ latencyMs: 0 });
    await completed(run.jobId, 25_000);
    expect(await readStore((store) => store.countRows('invoices', { live: true }))).toBe(
      await liveInvoices(),
    );
    const runs = (await invoiceRuns()).filter((item) => item.partition === '').reverse();
    // The killed run never finished: its row stays `running`, its pages are in the store.
    expect(runs.map((item) => item.result)).toEqual(['running', 'succeeded']);
    await expectResumed(runs[1]!);
  });

  it('never runs one stream partition in two worker processes at once', async () => {
    await createSimAdminClient({ url: sim.url }).setFaults({ latencyMs: 20 });
    await worker();
    await worker();
    for (let round = 0; round < 3; round++) {
      for (const full of [false, true]) {
        for (const stream of ['invoices', 'clients']) {
          await enqueueRun(fixture.queue, { stream, partition: '', trigger: 'manual', full });
          await enqueueRun(fixture.queue, { stream, partition: 'deleted', trigger: 'manual', full });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // The schedulers' next ticks stay delayed (a yearly cron); only sync jobs must be done.
    await eventually(
      async () => {
        const pending = await fixture.queue.getJobs(['waiting', 'active', 'delayed', 'prioritized']);
        return pending.every((job) => job.name !== jobNames.sync);
      },
      40_000,
      'no pending sync job',
    );
    const runs = await readStore((store) => store.listRuns({ limit: 1000 }));
    expect(runs.length).toBeGreaterThanOrEqual(8);
    expect(runs.every((run) => run.result === 'succeeded')).toBe(true);
    expect(overlapping(runs)).toEqual([]);
  }, 60_000);
});

/**
 * The run that finished went on from the checkpoint: at least two pages were committed before the
 * stop, so it read at most the rest of the listing plus the one page of its catch-up cycle.
 */
async function expectResumed(finishing: SyncRun): Promise<void> {
  const wholeListing = Math.ceil((await liveInvoices())! / pageLimit);
  expect(finishing.pages).toBeGreaterThan(0);
  expect(finishing.pages).toBeLessThanOrEqual(wholeListing - 1);
}

function overlapping(runs: SyncRun[]): string[] {
  const found: string[] = [];
  for (const a of runs) {
    for (const b of runs) {
      if (a.id >= b.id || a.stream !== b.stream || a.partition !== b.partition) continue;
      const aEnd = a.finishedAt?.getTime() ?? Number.POSITIVE_INFINITY;
      const bEnd = b.finishedAt?.getTime() ?? Number.POSITIVE_INFINITY;
      if (a.startedAt.getTime() < bEnd && b.startedAt.getTime() < aEnd)
        found.push(`${a.stream}/${a.partition} runs ${a.id} and ${b.id}`);
    }
  }
  return found;
}
