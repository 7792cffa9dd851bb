import { openStore } from '../src/store/open-store.js';
import { runMeasured } from './peak-rss.js';

/** One `tms-sync sync invoices` process, as a user runs it, and what `sync_runs` says it did. */
export interface ProductRun {
  /** Rows written (inserted + updated), both partitions. */
  readonly records: number;
  readonly pages: number;
  /** From the first partition's start to the last one's end (`sync_runs`): no process start, no migrations. */
  readonly seconds: number;
  /** The whole process, start-up and migrations included. */
  readonly wallSeconds: number;
  readonly peakRssMb: number;
  /** The highest `sync_runs.id` so far, to tell the next run's rows from these. */
  readonly lastRunId: number;
}

export interface ProductRunOptions {
  readonly simUrl: string;
  readonly storeUrl: string;
  /** `sync_runs` rows up to this id belong to earlier runs. @default 0 (a fresh store) */
  readonly afterRunId?: number;
  /** A config file (TMS_SYNC_CONFIG), e.g. history mode on. @default none */
  readonly configPath?: string;
  /** Node flags before the CLI, e.g. `--cpu-prof`. @default [] */
  readonly nodeFlags?: readonly string[];
}

/** Runs `node dist/tms-sync.js sync invoices` in its own process against the simulator and STORE_URL. */
export async function runProduct(options: ProductRunOptions): Promise<ProductRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMS_BASE_URL: options.simUrl,
    TMS_API_TOKEN: 'dev-api-token',
    STORE_URL: options.storeUrl,
    LOG_LEVEL: 'warn',
  };
  delete env.TMS_SYNC_CONFIG;
  if (options.configPath) env.TMS_SYNC_CONFIG = options.configPath;
  const measured = await runMeasured(
    [...(options.nodeFlags ?? []), 'dist/tms-sync.js', 'sync', 'invoices'],
    env,
  );
  return {
    ...(await runsSince(options.storeUrl, options.afterRunId ?? 0)),
    wallSeconds: measured.wallSeconds,
    peakRssMb: measured.peakRssMb,
  };
}

/** What the invoices runs after `afterRunId` did, from `sync_runs`; throws when one failed or none ran. */
export async function runsSince(
  storeUrl: string,
  afterRunId: number,
): Promise<Omit<ProductRun, 'wallSeconds' | 'peakRssMb'>> {
  const runs = await runsAfter(storeUrl, afterRunId);
  const failed = runs.find((run) => run.result !== 'succeeded');
  if (runs.length === 0 || failed)
    throw new Error(`the product's run failed: ${failed?.error ?? 'no run recorded'}`);
  const started = Math.min(...runs.map((run) => run.startedAt.getTime()));
  const finished = Math.max(...runs.map((run) => run.finishedAt!.getTime()));
  return {
    records: runs.reduce((sum, run) => sum + run.inserted + run.updated, 0),
    pages: runs.reduce((sum, run) => sum + run.pages, 0),
    seconds: (finished - started) / 1000,
    lastRunId: Math.max(...runs.map((run) => run.id)),
  };
}

async function runsAfter(storeUrl: string, afterId: number) {
  const store = await openStore(storeUrl, { migrate: false });
  try {
    const runs = await store.listRuns({ stream: 'invoices', limit: 100 });
    return runs.filter((run) => run.id > afterId);
  } finally {
    await store.close();
  }
}

/** The highest `sync_runs.id` of invoices in a store (0 when none). */
export async function lastRunId(storeUrl: string): Promise<number> {
  const runs = await runsAfter(storeUrl, 0);
  return runs.length === 0 ? 0 : Math.max(...runs.map((run) => run.id));
}
