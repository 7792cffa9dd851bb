// The children group (BENCHMARKS.md, "children"), over 300 lines on purpose: its four rows share
// one simulator, one store and one Redis, set up and torn down here in order, so the rows read
// best side by side in one file.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { RequestCounts, SecondCount } from '../src/sim/sim-admin-client.js';
import { openStore } from '../src/store/open-store.js';
import { deleteKeysUnder } from '../test/jobs/support/queue-fixture.js';
import { runMeasured, runScript } from './peak-rss.js';
import { type SimProcess, startSimProcess } from './sim-process.js';
import { removeSqlite } from './sqlite-files.js';
import { startWorker } from './worker-process.js';

/** The speed targets: the child streams of a data set, against latency and a rate limit. */
export interface ChildrenOptions {
  readonly invoices: number;
  readonly clients: number;
  readonly repetitions: number;
  readonly workDir: string;
  /** Redis for row (c), two workers sharing the budget; undefined leaves it out. */
  readonly redisUrl: string | undefined;
  /** TMS_MAX_CONCURRENCY of the product, the plain loop's requests in flight. @default 16 */
  readonly maxConcurrency?: number;
  /** @default 30 */
  readonly latencyMs?: number;
  /** The simulator's limit of rows (b) and (c), requests per second. @default 300 */
  readonly rateLimit?: number;
  /** Also row (b'): the limit not told to the product (TMS_MAX_RPS unset). @default false */
  readonly untold?: boolean;
  readonly log: (line: string) => void;
}

export type ChildRowId =
  | 'children-loop'
  | 'children-product'
  | 'children-limited'
  | 'children-untold'
  | 'children-two-workers';

/** One repetition of a children row. */
export interface ChildSample {
  /** Child requests answered (the login left out), 429s included. */
  readonly requests: number;
  readonly rateLimited: number;
  /** The child runs' time in `sync_runs` (the loop: its own timing of the requests). */
  readonly seconds: number;
  readonly wallSeconds: number;
  /** Seconds whose answers went above the limit (rows with a limit). */
  readonly secondsAboveLimit?: number;
  /** The most the answers of any run of consecutive seconds went above limit x seconds. */
  readonly worstExcess?: number;
}

export const childStreams = ['invoice_lines', 'invoice_payments', 'client_contacts', 'client_addressbook'];

export const childRowLabels: Record<ChildRowId, string> = {
  'children-loop': 'plain loop, same requests, same ceiling in flight (the simulator at 30 ms)',
  'children-product': '(a) tms-sync sync <child streams>, 30 ms, no limit',
  'children-limited': '(b) the same at a 300 requests/s limit, TMS_MAX_RPS=300',
  'children-untold': "(b') the same at 300 requests/s, TMS_MAX_RPS not set (the limit found by 429s)",
  'children-two-workers': '(c) the same, two tms-sync workers sharing the budget in Redis',
};

/**
 * The product's child streams after a parent sync, one-shot and in two workers, beside the plain
 * loop's capacity (row a) and the allowance (rows b, c). Each case has its own simulator (30 ms on
 * every answer; a limit for b and c) over the same data (seed 1); every run starts from a copy of
 * one store the parents were synced into, so each refreshes every parent's children.
 */
export async function measureChildren(options: ChildrenOptions): Promise<Map<ChildRowId, ChildSample[]>> {
  const samples = new Map<ChildRowId, ChildSample[]>();
  const add = (id: ChildRowId, sample: ChildSample) => {
    samples.set(id, [...(samples.get(id) ?? []), sample]);
    options.log(
      `  ${id}: ${sample.requests} requests in ${sample.seconds.toFixed(1)} s = ${Math.round(sample.requests / sample.seconds)}/s, ${sample.rateLimited} x 429`,
    );
  };
  const template = join(options.workDir, 'children-template.sqlite');
  const simOptions = {
    invoices: options.invoices,
    clients: options.clients,
    latencyMs: options.latencyMs ?? 30,
  };
  const concurrency = options.maxConcurrency ?? 16;
  const limit = options.rateLimit ?? 300;
  await withSim(simOptions, async (sim) => {
    await syncParents(sim, template);
    for (let repetition = 0; repetition < options.repetitions; repetition++) {
      add('children-loop', await childLoop(sim, concurrency));
      add(
        'children-product',
        await productChildren(sim, template, options.workDir, { concurrency, told: false }),
      );
    }
  });
  await withSim({ ...simOptions, rateLimit: limit }, async (sim) => {
    for (let repetition = 0; repetition < options.repetitions; repetition++) {
      add(
        'children-limited',
        await productChildren(sim, template, options.workDir, { concurrency, limit, told: true }),
      );
      if (options.untold)
        add(
          'children-untold',
          await productChildren(sim, template, options.workDir, { concurrency, limit, told: false }),
        );
      if (options.redisUrl)
        add(
          'children-two-workers',
          await twoWorkers(sim, template, { ...options, redisUrl: options.redisUrl }, concurrency, limit),
        );
    }
  });
  removeSqlite(template);
  return samples;
}

async function withSim<T>(
  options: Parameters<typeof startSimProcess>[0],
  run: (sim: SimProcess) => Promise<T>,
) {
  const sim = await startSimProcess(options);
  try {
    return await run(sim);
  } finally {
    await sim.stop();
  }
}

function productEnv(sim: SimProcess, path: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['TMS_SYNC_CONFIG', 'TMS_MAX_RPS', 'TMS_MAX_CONCURRENCY']) delete env[name];
  return {
    ...env,
    TMS_BASE_URL: sim.url,
    TMS_API_TOKEN: 'dev-api-token',
    STORE_URL: `sqlite:${path}`,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** The parents (invoices, clients) synced once into the store every child run starts from. */
async function syncParents(sim: SimProcess, template: string): Promise<void> {
  removeSqlite(template);
  await runMeasured(['dist/tms-sync.js', 'sync', 'invoices', 'clients'], productEnv(sim, template));
}

function freshCopy(template: string, workDir: string): string {
  const path = join(workDir, `children-${randomUUID().slice(0, 8)}.sqlite`);
  copyFileSync(template, path);
  if (existsSync(`${template}-wal`)) copyFileSync(`${template}-wal`, `${path}-wal`);
  return path;
}

async function childLoop(sim: SimProcess, concurrency: number): Promise<ChildSample> {
  const { result, wallSeconds } = await runScript<{ requests: number; seconds: number }>(
    'bench/child-loop.ts',
    ['--url', sim.url, '--concurrency', String(concurrency)],
  );
  return { ...result, rateLimited: 0, wallSeconds };
}

async function productChildren(
  sim: SimProcess,
  template: string,
  workDir: string,
  settings: { concurrency: number; limit?: number; told: boolean },
): Promise<ChildSample> {
  const path = freshCopy(template, workDir);
  try {
    const extra: Record<string, string> = { TMS_MAX_CONCURRENCY: String(settings.concurrency) };
    if (settings.limit && settings.told) extra.TMS_MAX_RPS = String(settings.limit);
    const before = await sim.admin.requests();
    const measured = await runMeasured(
      ['dist/tms-sync.js', 'sync', ...childStreams],
      productEnv(sim, path, extra),
    );
    return await childSample(sim, before, path, measured.wallSeconds, settings.limit);
  } finally {
    removeSqlite(path);
  }
}

/**
 * Row (c): two `tms-sync worker` processes on one store, each TMS_MAX_RPS=300 and two jobs at a
 * time, sharing the budget through Redis; `trigger --wait` enqueues the four child streams.
 */
async function twoWorkers(
  sim: SimProcess,
  template: string,
  options: ChildrenOptions & { redisUrl: string },
  concurrency: number,
  limit: number,
): Promise<ChildSample> {
  const path = freshCopy(template, options.workDir);
  const config = join(options.workDir, 'children-worker-config.json');
  writeFileSync(config, JSON.stringify({ schedule: { cron: '0 0 1 1 *' } }));
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const env = productEnv(sim, path, {
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: prefix,
    TMS_SYNC_CONFIG: config,
    OPS_PORT: '0',
    LOG_LEVEL: 'info',
    TMS_MAX_RPS: String(limit),
    TMS_MAX_CONCURRENCY: String(concurrency),
    WORKER_CONCURRENCY: '2',
  });
  const workers = await Promise.all([startWorker(env), startWorker(env)]);
  try {
    const before = await sim.admin.requests();
    const measured = await runMeasured(
      ['dist/tms-sync.js', 'trigger', ...childStreams, '--wait', '--timeout', '3600'],
      { ...env, LOG_LEVEL: 'warn' },
    );
    return await childSample(sim, before, path, measured.wallSeconds, limit);
  } finally {
    for (const worker of workers) worker.kill('SIGTERM');
    await Promise.all(workers.map((worker) => once(worker, 'exit')));
    const redis = new Redis(options.redisUrl);
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    removeSqlite(path);
  }
}

/** What a child run did, from the simulator's counts since `before` and the store's `sync_runs`. */
async function childSample(
  sim: SimProcess,
  before: RequestCounts,
  path: string,
  wallSeconds: number,
  limit: number | undefined,
): Promise<ChildSample> {
  const served = answered(before, await sim.admin.requests());
  const window = await childRunWindow(path);
  return {
    ...served,
    seconds: window.seconds,
    wallSeconds,
    ...(limit ? keptToLimit(await sim.admin.requestsPerSecond(), window, limit) : {}),
  };
}

/** API answers between two counts, the login left out (it is not rate limited, and not a child request). */
function answered(before: RequestCounts, after: RequestCounts): { requests: number; rateLimited: number } {
  let requests = 0;
  let rateLimited = 0;
  for (const [route, byStatus] of Object.entries(after)) {
    if (route.startsWith('POST ')) continue;
    for (const [status, count] of Object.entries(byStatus)) {
      const served = count - (before[route]?.[status] ?? 0);
      requests += served;
      if (status === '429') rateLimited += served;
    }
  }
  return { requests, rateLimited };
}

interface RunWindow {
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly seconds: number;
}

/** From the first child run's start to the last one's end; every child stream must have succeeded. */
async function childRunWindow(path: string): Promise<RunWindow> {
  const store = await openStore(`sqlite:${path}`, { migrate: false });
  try {
    const runs = (
      await Promise.all(childStreams.map((stream) => store.listRuns({ stream, limit: 1 })))
    ).flat();
    const failed = runs.find((run) => run.result !== 'succeeded');
    if (runs.length !== childStreams.length || failed)
      throw new Error(`a child run failed: ${failed?.error ?? 'not every child stream ran'}`);
    const startedAt = Math.min(...runs.map((run) => run.startedAt.getTime()));
    const finishedAt = Math.max(...runs.map((run) => run.finishedAt!.getTime()));
    return { startedAt, finishedAt, seconds: (finishedAt - startedAt) / 1000 };
  } finally {
    await store.close();
  }
}

/**
 * How the answers of the run's seconds kept to the limit: the seconds above it, and the most any
 * run of consecutive seconds went above limit x its length (one burst is the bucket's own capacity,
 * one second's worth; more than that means the clients together outran the limit).
 */
export function keptToLimit(
  perSecond: readonly SecondCount[],
  window: RunWindow,
  limit: number,
): { secondsAboveLimit: number; worstExcess: number } {
  const first = Math.floor(window.startedAt / 1000);
  const last = Math.floor(window.finishedAt / 1000);
  const counts = new Map(perSecond.map((second) => [second.second, second.answered]));
  let secondsAboveLimit = 0;
  let worstExcess = 0;
  let running = 0;
  for (let second = first; second <= last; second++) {
    const excess = (counts.get(second) ?? 0) - limit;
    if (excess > 0) secondsAboveLimit++;
    running = Math.max(0, running + excess);
    worstExcess = Math.max(worstExcess, running);
  }
  return { secondsAboveLimit, worstExcess };
}
