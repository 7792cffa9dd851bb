import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { deleteKeysUnder } from '../test/jobs/support/queue-fixture.js';
import { type IncrementalSample, minimumPages } from './incremental.js';
import { runMeasured } from './peak-rss.js';
import { lastRunId, runsSince } from './product-run.js';
import { sampled } from './sample.js';
import type { SimProcess } from './sim-process.js';
import { startWorker } from './worker-process.js';

export interface WorkerCyclesOptions {
  readonly sim: SimProcess;
  /** A store the product has backfilled. */
  readonly storeUrl: string;
  readonly records: number;
  readonly repetitions: number;
  readonly redisUrl: string;
  readonly workDir: string;
}

/** The change share measured in a running worker: the 0.1% target. */
const share = 0.001;

/**
 * The 0.1% cycle as a user who keeps the invoices current runs it: in a `tms-sync worker` that
 * stays up. The worker starts once on the backfilled store (its schedules never tick: a yearly cron),
 * one cycle warms it up, then each repetition changes 0.1% of the invoices and runs
 * `trigger invoices --wait`; the cycle's time comes from `sync_runs` as for the one-shot rows.
 */
export async function measureWorkerCycles(options: WorkerCyclesOptions): Promise<IncrementalSample[]> {
  const config = join(options.workDir, 'worker-config.json');
  // The invoices alone, as in the backfill and one-shot rows it is set beside. With the child
  // streams configured, each changed invoice's children are fetched at once (~4 requests per
  // parent), beside the invoices' second partition: the children group measures that cost.
  writeFileSync(
    config,
    JSON.stringify({ schedule: { cron: '0 0 1 1 *' }, streams: { include: ['invoices'] } }),
  );
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMS_BASE_URL: options.sim.url,
    TMS_API_TOKEN: 'dev-api-token',
    STORE_URL: options.storeUrl,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: prefix,
    TMS_SYNC_CONFIG: config,
    OPS_PORT: '0',
    LOG_LEVEL: 'info',
  };
  const worker = await startWorker(env);
  try {
    const trigger = () =>
      runMeasured(['dist/tms-sync.js', 'trigger', 'invoices', '--wait', '--timeout', '600'], env);
    await trigger();
    const samples: IncrementalSample[] = [];
    let afterRunId = await lastRunId(options.storeUrl);
    for (let repetition = 0; repetition < options.repetitions; repetition++) {
      const count = Math.max(1, Math.round(options.records * share));
      const changes = await options.sim.changeInvoices(count, 5000 + repetition);
      const sample = await sampled(options.sim, async () => {
        const { wallSeconds } = await trigger();
        const runs = await runsSince(options.storeUrl, afterRunId);
        afterRunId = runs.lastRunId;
        return { ...runs, wallSeconds, peakRssMb: peakRssMb(worker) };
      });
      samples.push({ ...sample, share, changes: count, minimumPages: minimumPages(changes) });
    }
    return samples;
  } finally {
    worker.kill('SIGTERM');
    await once(worker, 'exit');
    const redis = new Redis(options.redisUrl);
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  }
}

/** The worker's peak resident set so far (VmHWM). */
function peakRssMb(worker: ChildProcess): number {
  const status = readFileSync(`/proc/${worker.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}
