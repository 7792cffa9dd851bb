// The worker at fleet size (the partitions targets): `tms-sync worker` on a store a backfill filled, every
// operator of the simulator configured, a schedule every `intervalSeconds`. Measured: the time to
// start (schedulers included), one scheduled cycle of every partition, how long the last job of
// the cycle waited, Redis memory, a /metrics scrape and a `status` (each the median of three, one
// after the other: one sample of either spread 2x with the machine), the worker's CPU and RSS.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Redis } from 'ioredis';
import { deleteKeysUnder } from '../test/jobs/support/queue-fixture.js';
import { operatorIds } from './partition-rows.js';
import { runMeasured } from './peak-rss.js';
import { cpuSeconds } from './process-cpu.js';
import { median } from './sample.js';
import type { SimProcess } from './sim-process.js';

export interface FleetWorkerOptions {
  readonly sim: SimProcess;
  readonly operators: number;
  /** A store the product backfilled from `sim`. */
  readonly storePath: string;
  readonly redisUrl: string;
  readonly workDir: string;
  /** The schedule of every partition. @default 300 */
  readonly intervalSeconds?: number;
  /** WORKER_CONCURRENCY. @default 16 */
  readonly concurrency?: number;
  readonly log: (line: string) => void;
}

export interface FleetWorkerRow {
  readonly operators: number;
  readonly partitions: number;
  readonly intervalSeconds: number;
  readonly concurrency: number;
  /** From spawn to "worker started": engine, store, schedulers upserted. */
  readonly startSeconds: number;
  readonly schedulers: number;
  /** From the cycle's first run starting to its last run ending. */
  readonly cycleSeconds: number;
  /** From the cycle's first run starting to its last run starting: the longest any job of it waited. */
  readonly longestWaitSeconds: number;
  readonly failedRuns: number;
  /** Runs of the cycle: more than the partitions when some ran twice before every one ran once. */
  readonly runs: number;
  readonly redisMemoryMb: number;
  readonly redisKeys: number;
  /** The median of `metricsSamples`. */
  readonly metricsSeconds: number;
  readonly metricsSamples?: number[];
  readonly metricsBytes: number;
  /** The median of `statusSamples`: `tms-sync status --json`, its whole process. */
  readonly statusSeconds: number;
  readonly statusSamples?: number[];
  readonly workerCpuSeconds: number;
  readonly workerRssMb: number;
}

export async function measureFleetWorker(options: FleetWorkerOptions): Promise<FleetWorkerRow> {
  const intervalSeconds = options.intervalSeconds ?? 300;
  const concurrency = options.concurrency ?? 16;
  const config = join(options.workDir, 'fleet-config.json');
  writeFileSync(config, JSON.stringify({ schedule: { everySeconds: intervalSeconds } }));
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMS_BASE_URL: options.sim.url,
    TMS_API_TOKEN: 'dev-api-token',
    TMS_OPERATORS: operatorIds(options.operators),
    STORE_URL: `sqlite:${options.storePath}`,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: prefix,
    TMS_SYNC_CONFIG: config,
    WORKER_CONCURRENCY: String(concurrency),
    OPS_PORT: '0',
    LOG_LEVEL: 'info',
  };
  const redis = new Redis(options.redisUrl);
  const memoryBefore = await usedMemory(redis);
  const db = new BetterSqlite3(options.storePath, { readonly: true });
  const runBefore = (db.prepare('select coalesce(max(id), 0) as id from sync_runs').get() as { id: number })
    .id;
  const started = performance.now();
  const { worker, opsUrl, schedulers } = await spawnWorker(env);
  const startSeconds = (performance.now() - started) / 1000;
  try {
    const partitions = Number(
      (db.prepare('select count(*) as n from partition_runs').get() as { n: number }).n,
    );
    options.log(
      `  worker started in ${startSeconds.toFixed(1)} s with ${schedulers} schedulers; waiting for a cycle of ${partitions} partitions`,
    );
    const cycle = await waitForCycle(db, runBefore, partitions, intervalSeconds * 3);
    const redisMemoryMb = ((await usedMemory(redis)) - memoryBefore) / 1024 / 1024;
    const redisKeys = (await redis.keys(`${prefix}:*`)).length;
    const scrapes: Array<{ value: string; seconds: number }> = [];
    for (let sample = 0; sample < samples; sample++)
      scrapes.push(await timed(async () => (await fetch(`${opsUrl}/metrics`)).text()));
    const statuses: number[] = [];
    for (let sample = 0; sample < samples; sample++)
      statuses.push((await runMeasured(['dist/tms-sync.js', 'status', '--json'], env)).wallSeconds);
    return {
      operators: options.operators,
      partitions,
      intervalSeconds,
      concurrency,
      startSeconds,
      schedulers,
      ...cycle,
      redisMemoryMb,
      redisKeys,
      metricsSeconds: median(scrapes.map((scrape) => scrape.seconds)),
      metricsSamples: scrapes.map((scrape) => scrape.seconds),
      metricsBytes: scrapes[0]!.value.length,
      statusSeconds: median(statuses),
      statusSamples: statuses,
      workerCpuSeconds: cpuSeconds(worker.pid!),
      workerRssMb: residentMb(worker.pid!),
    };
  } finally {
    worker.kill('SIGTERM');
    await once(worker, 'exit');
    db.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  }
}

/**
 * Starts `tms-sync worker [args]`; resolves with its ops URL and scheduler count once it logged
 * "worker started". Its output is read and dropped, or with `logDir` (the bench's `--worker-logs`)
 * kept whole in `worker-PID.log` there.
 */
export async function spawnWorker(
  env: NodeJS.ProcessEnv,
  args: readonly string[] = [],
  logDir: string | undefined = undefined,
) {
  const worker: ChildProcess = spawn(process.execPath, ['dist/tms-sync.js', 'worker', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (logDir) {
    mkdirSync(logDir, { recursive: true });
    const file = createWriteStream(join(logDir, `worker-${worker.pid}.log`));
    worker.stdout!.pipe(file, { end: false });
    worker.stderr!.pipe(file, { end: false });
    worker.once('close', () => file.end());
  }
  let output = '';
  const started = await new Promise<{ opsUrl: string; schedulers: number }>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n').find((text) => text.includes('"worker started"'));
      if (!line) return;
      const schedulers = output.split('\n').find((text) => text.includes('"job schedulers in place"'));
      worker.stdout!.off('data', onData);
      worker.stderr!.off('data', onData);
      resolve({
        opsUrl: (JSON.parse(line) as { ops: string }).ops,
        schedulers: schedulers ? (JSON.parse(schedulers) as { upserted: number }).upserted : 0,
      });
    };
    worker.stdout!.on('data', onData);
    worker.stderr!.on('data', onData);
    worker.once('exit', (code) =>
      reject(new Error(`the worker exited (${code}) before it started:\n${output}`)),
    );
  });
  worker.stdout!.resume();
  worker.stderr!.resume();
  return { worker, ...started };
}

/** Waits until every partition has a finished run after `runBefore`; the cycle's span from sync_runs. */
async function waitForCycle(
  db: BetterSqlite3.Database,
  runBefore: number,
  partitions: number,
  timeoutSeconds: number,
) {
  const finished = db.prepare(
    `select count(*) as n from partition_runs p join sync_runs r on r.id = p.last_run_id
     where r.id > ? and r.result <> 'running'`,
  );
  const deadline = performance.now() + timeoutSeconds * 1000;
  while ((finished.get(runBefore) as { n: number }).n < partitions) {
    if (performance.now() > deadline) throw new Error(`no full cycle within ${timeoutSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const span = db
    .prepare(
      `select min(started_at) as first, max(started_at) as last, max(finished_at) as ended,
         sum(case when result = 'failed' then 1 else 0 end) as failed, count(*) as runs
       from sync_runs where id > ?`,
    )
    .get(runBefore) as { first: string; last: string; ended: string; failed: number; runs: number };
  const at = (text: string) => Date.parse(text) / 1000;
  return {
    cycleSeconds: at(span.ended) - at(span.first),
    longestWaitSeconds: at(span.last) - at(span.first),
    failedRuns: span.failed,
    runs: span.runs,
  };
}

/** Samples of each of `/metrics` and `status`, their median reported. */
const samples = 3;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = performance.now();
  const value = await work();
  return { value, seconds: (performance.now() - started) / 1000 };
}

export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

/** Peak RSS of a running process (VmHWM), or its RSS now (VmRSS) with `now`. */
export function residentMb(pid: number, now = false): number {
  const field = now ? 'VmRSS' : 'VmHWM';
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}
