import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { loadSettings } from '../../../config/load-settings.js';
import { openSyncQueue } from '../../../jobs/sync-queue.js';
import { differencesFromTruth } from '../../../src/cli/store-vs-truth.js';
import type { RequestCounts } from '../../../src/sim/admin/request-counter.js';
import { createSimAdminClient, type SimAdminClient } from '../../../src/sim/sim-admin-client.js';
import { openStore } from '../../../src/store/open-store.js';
import { deleteKeysUnder } from '../../jobs/support/queue-fixture.js';
import { type CliProcess, exitWithin, spawnCli, spawnWorker } from '../../jobs/support/worker-process.js';
import { historyDifferences } from '../convergence/history-checks.js';

export interface CrashDrillOptions {
  readonly invoices: number;
  readonly clients: number;
  /** Kills that must land while a sync job runs, during the backfill and during incremental runs. */
  readonly backfillKills: number;
  readonly incrementalKills: number;
  /** Random changes before each incremental round (no hard deletes: no reconcile is needed). */
  readonly changesPerRound: number;
  /** Per phase, a kill comes this long (uniform, ms) after the restarted worker took up a job. */
  readonly killDelayMs: Readonly<Record<PhaseReport['phase'], readonly [number, number]>>;
  /** Page size of the listings; smaller pages make more commits to crash between. */
  readonly pageLimit: number;
  /** Added to every simulator answer (0: as fast as it serves). */
  readonly latencyMs: number;
  /** The drilled store; default a fresh SQLite file. */
  readonly storeUrl?: string;
  readonly seed: number;
  readonly redisUrl: string;
  readonly log: (line: string) => void;
}

export interface PhaseReport {
  readonly phase: 'backfill' | 'incremental';
  readonly kills: number;
  /** Listing pages the killed-and-restarted workers fetched, and what one uninterrupted run fetched. */
  readonly pagesFetched: number;
  readonly pagesUninterrupted: number;
  readonly seconds: number;
}

export interface CrashDrillReport {
  readonly phases: readonly PhaseReport[];
  /** Per stream: live rows in the drilled store and differences from the simulator's truth. */
  readonly streams: ReadonlyArray<{ stream: string; rows: number; differences: readonly string[] }>;
}

const streams = ['invoices', 'clients'];
const changeKinds = ['create', 'update', 'finalize', 'cancel', 'softDelete'];

/**
 * The crash drill of RELIABILITY.md: a worker syncing `invoices` and `clients` is killed with
 * SIGKILL at random moments and restarted, during the backfill and during incremental runs. A twin
 * simulator (same seed, same changes) is synced once without crashes, so the pages fetched again
 * because of the crashes are counted exactly from the two simulators' request counters. At the
 * end the drilled store must equal its simulator's truth, and its history (on for both streams)
 * must hold its invariants: a resumed run never writes a version twice.
 */
export async function runCrashDrill(options: CrashDrillOptions): Promise<CrashDrillReport> {
  const dir = mkdtempSync(join(tmpdir(), 'tms-crash-drill-'));
  const processes: CliProcess[] = [];
  const prefix = `crash-drill-${randomUUID().slice(0, 8)}`;
  try {
    const [drilled, twin] = await Promise.all([
      startSimProcess(options, processes),
      startSimProcess(options, processes),
    ]);
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      // Only the drilled streams: their child streams do not follow them (the twin syncs them alone).
      JSON.stringify({
        schedule: { cron: '0 0 1 1 *' },
        // History mode on both: a resumed run must never write a version twice (history-checks.ts).
        streams: { include: streams, history: streams },
        sync: { pageLimit: options.pageLimit },
      }),
    );
    const base = { TMS_API_TOKEN: 'dev-api-token', TMS_SYNC_CONFIG: config, LOG_LEVEL: 'info' };
    const drillEnv = {
      ...base,
      TMS_BASE_URL: drilled.url,
      STORE_URL: options.storeUrl ?? `sqlite:${join(dir, 'drilled.sqlite')}`,
      REDIS_URL: options.redisUrl,
      QUEUE_PREFIX: prefix,
      WORKER_LOCK_MS: '2000',
      WORKER_MAX_STALLS: '1000',
      JOB_BACKOFF_MS: '100',
    };
    const twinEnv = {
      ...base,
      TMS_BASE_URL: twin.url,
      STORE_URL: `sqlite:${join(dir, 'uninterrupted.sqlite')}`,
    };
    const drill = { env: drillEnv, sim: drilled.admin, processes, options };
    const phases: PhaseReport[] = [];
    phases.push(await phase('backfill', options.backfillKills, drill, twinEnv, twin.admin));
    let round = 0;
    let kills = 0;
    const started = Date.now();
    let fetched = 0;
    let uninterrupted = 0;
    while (kills < options.incrementalKills && round < options.incrementalKills * 4) {
      round += 1;
      for (const admin of [drilled.admin, twin.admin]) {
        await admin.applyChanges(options.changesPerRound, options.seed + round, {
          streams,
          kinds: changeKinds,
        });
      }
      const result = await phase('incremental', 1, drill, twinEnv, twin.admin);
      kills += result.kills;
      fetched += result.pagesFetched;
      uninterrupted += result.pagesUninterrupted;
    }
    phases.push({
      phase: 'incremental',
      kills,
      pagesFetched: fetched,
      pagesUninterrupted: uninterrupted,
      seconds: Math.round((Date.now() - started) / 1000),
    });
    return { phases, streams: await compareWithTruth(drillEnv.STORE_URL, drilled.admin) };
  } finally {
    for (const child of processes) if (child.child.exitCode === null) child.child.kill('SIGKILL');
    await Promise.all(processes.map((child) => child.exited));
    const redis = new Redis(options.redisUrl);
    await deleteKeysUnder(redis, prefix).catch(() => undefined);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Drill {
  readonly env: NodeJS.ProcessEnv;
  readonly sim: SimAdminClient;
  readonly processes: CliProcess[];
  readonly options: CrashDrillOptions;
}

/** One sync of both streams under SIGKILLs (until `kills` landed or it finished) next to an uninterrupted one. */
async function phase(
  name: PhaseReport['phase'],
  kills: number,
  drill: Drill,
  twinEnv: NodeJS.ProcessEnv,
  twin: SimAdminClient,
): Promise<PhaseReport> {
  const started = Date.now();
  const twinBefore = await twin.requests();
  const twinRun = spawnCli(['sync', ...streams], twinEnv);
  drill.processes.push(twinRun);
  const twinCode = await exitWithin(twinRun, 600_000);
  if (twinCode !== 0)
    throw new Error(
      `the uninterrupted sync failed (exit ${twinCode}):\n${twinRun.lines.slice(-10).join('\n')}`,
    );
  const pagesUninterrupted = pagesBetween(twinBefore, await twin.requests());

  const before = await drill.sim.requests();
  const landed = await syncUnderKills(drill, kills, drill.options.killDelayMs[name]);
  const pagesFetched = pagesBetween(before, await drill.sim.requests());
  const seconds = Math.round((Date.now() - started) / 1000);
  drill.options.log(
    `${name}: ${landed} kills, ${pagesFetched} pages fetched, ${pagesUninterrupted} uninterrupted, ${seconds} s`,
  );
  return { phase: name, kills: landed, pagesFetched, pagesUninterrupted, seconds };
}

/**
 * Triggers both streams and waits for them (`trigger --wait`), killing the worker with SIGKILL a
 * random moment after it took up a job, `kills` times at most, restarting it after each kill.
 * Only kills that land while a job is active count.
 */
async function syncUnderKills(
  drill: Drill,
  kills: number,
  [min, max]: readonly [number, number],
): Promise<number> {
  const { env, options } = drill;
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queue = openSyncQueue(loadSettings(env), redis);
  const trigger = spawnCli(['trigger', ...streams, '--wait', '--timeout', '3600'], env);
  drill.processes.push(trigger);
  let landed = 0;
  let worker: CliProcess | undefined;
  try {
    for (;;) {
      worker = await spawnWorker(env);
      drill.processes.push(worker);
      if (landed >= kills) break;
      const taken = await Promise.race([worker.waitForLine('"sync job started"', 120_000), trigger.exited]);
      if (typeof taken !== 'string') break;
      await sleep(min + Math.random() * (max - min));
      if (trigger.child.exitCode !== null || (await queue.getActiveCount()) === 0) break;
      worker.child.kill('SIGKILL');
      await worker.exited;
      landed += 1;
    }
    const code = await exitWithin(trigger, 3_600_000);
    if (code !== 0)
      throw new Error(`the drilled sync failed (exit ${code}):\n${trigger.lines.slice(-10).join('\n')}`);
    worker.child.kill('SIGTERM');
    await exitWithin(worker, 60_000);
    return landed;
  } finally {
    await queue.close();
    await redis.quit();
  }
}

/** `tms-sync sim` in its own process (its own event loop), with the drill's size, seed and latency. */
async function startSimProcess(
  options: CrashDrillOptions,
  processes: CliProcess[],
): Promise<{ url: string; admin: SimAdminClient }> {
  const sim = spawnCli(
    [
      'sim',
      '--port',
      '0',
      '--seed',
      String(options.seed),
      '--invoices',
      String(options.invoices),
      '--clients',
      String(options.clients),
      '--operators',
      '1',
    ],
    {},
  );
  processes.push(sim);
  const line = await sim.waitForLine('tms-sim listening on', 60_000);
  const url = /listening on (\S+)/.exec(line)![1]!;
  const admin = createSimAdminClient({ url });
  await admin.setFaults({ latencyMs: options.latencyMs });
  return { url, admin };
}

/** Listing pages served between two readings of a simulator's request counter (GET answers with 200). */
function pagesBetween(before: RequestCounts, after: RequestCounts): number {
  let pages = 0;
  for (const [route, byStatus] of Object.entries(after)) {
    if (route.startsWith('GET ')) pages += (byStatus['200'] ?? 0) - (before[route]?.['200'] ?? 0);
  }
  return pages;
}

async function compareWithTruth(storeUrl: string, sim: SimAdminClient): Promise<CrashDrillReport['streams']> {
  const store = await openStore(storeUrl);
  try {
    const result: Array<CrashDrillReport['streams'][number]> = [];
    for (const stream of streams) {
      const differences = [
        ...(await differencesFromTruth(store, await sim.truth(stream), [stream])),
        ...(await historyDifferences(store, [stream])),
      ];
      result.push({ stream, rows: await store.countRows(stream, { live: true }), differences });
    }
    return result;
  } finally {
    await store.close();
  }
}
