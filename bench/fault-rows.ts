import { join } from 'node:path';
import { restStreams } from '../src/sim/admin/sim-truth.js';
import { openStore } from '../src/store/open-store.js';
import { runMeasured, runScript } from './peak-rss.js';
import { type SimProcess, startSimProcess } from './sim-process.js';
import { removeSqlite } from './sqlite-files.js';

/** The fault targets' row: the REST streams and all their children against a flaky TMS, beside a plain client. */
export interface FaultOptions {
  readonly invoices: number;
  readonly clients: number;
  readonly repetitions: number;
  readonly workDir: string;
  /** The plain client's requests in flight. @default 8 */
  readonly plainConcurrency?: number;
  readonly log: (line: string) => void;
}

export type FaultProfile = 'none' | 'harsh';
export type FaultRowId = `faults-${'plain' | 'product'}-${FaultProfile}`;

/** One repetition of a fault row: the whole process, as a user times it. */
export interface FaultSample {
  readonly records: number;
  readonly seconds: number;
  /** Sends of the process, retries included (the product's own count; the plain client's). */
  readonly sends: number;
  /** The product: wall time every request was held because a 429 asked (its summary's figure). */
  readonly pausedSeconds?: number;
  readonly rateLimited?: number;
}

export const faultRowLabels: Record<FaultRowId, string> = {
  'faults-plain-none': 'plain client, 8 in flight, no faults',
  'faults-product-none': 'tms-sync sync <REST streams>, no faults',
  'faults-plain-harsh': 'plain client, 8 in flight, every Retry-After honoured, harsh faults',
  'faults-product-harsh': 'tms-sync sync <REST streams>, harsh faults (--token-ttl 5)',
};

/**
 * Each profile has its own simulator (`--faults none|harsh --token-ttl 5`, the same data); the
 * product syncs the REST streams into a fresh store, the plain client (bench/plain-client.ts)
 * fetches the same records. Both are whole processes; the order alternates per repetition.
 */
export async function measureFaults(options: FaultOptions): Promise<Map<FaultRowId, FaultSample[]>> {
  const samples = new Map<FaultRowId, FaultSample[]>();
  for (const profile of ['none', 'harsh'] as const) {
    const sim = await startSimProcess({
      invoices: options.invoices,
      clients: options.clients,
      faults: profile,
      tokenTtlSeconds: 5,
    });
    try {
      for (let repetition = 0; repetition < options.repetitions; repetition++) {
        const contenders = [
          ['plain', () => plainClient(sim, options.plainConcurrency ?? 8)],
          ['product', () => product(sim, join(options.workDir, `faults-${profile}-${repetition}.sqlite`))],
        ] as const;
        for (const [name, run] of repetition % 2 === 0 ? contenders : [...contenders].reverse()) {
          const sample = await run();
          const id: FaultRowId = `faults-${name}-${profile}`;
          samples.set(id, [...(samples.get(id) ?? []), sample]);
          options.log(
            `  ${id}: ${sample.records} records in ${sample.seconds.toFixed(1)} s, ${sample.sends} sends${sample.pausedSeconds === undefined ? '' : `, ${sample.pausedSeconds.toFixed(1)} s paused as asked`}`,
          );
        }
      }
    } finally {
      await sim.stop();
    }
  }
  return samples;
}

async function plainClient(sim: SimProcess, concurrency: number): Promise<FaultSample> {
  const { result, wallSeconds } = await runScript<{ records: number; sends: number }>(
    'bench/plain-client.ts',
    ['--url', sim.url, '--concurrency', String(concurrency)],
  );
  return { records: result.records, sends: result.sends, seconds: wallSeconds };
}

const trafficLine =
  /^TMS: ([\d,]+) requests(?:, ([\d,]+) sent again[^,]*)?(?:, ([\d,]+) answered 429, ([\d.]+) s paused)?/m;
const number = (text: string | undefined) => Number((text ?? '0').replaceAll(',', ''));

async function product(sim: SimProcess, path: string): Promise<FaultSample> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMS_BASE_URL: sim.url,
    TMS_API_TOKEN: 'dev-api-token',
    STORE_URL: `sqlite:${path}`,
    LOG_LEVEL: 'warn',
  };
  for (const name of ['TMS_SYNC_CONFIG', 'TMS_MAX_RPS', 'TMS_MAX_CONCURRENCY']) delete env[name];
  try {
    const measured = await runMeasured(['dist/tms-sync.js', 'sync', ...restStreams], env);
    const traffic = trafficLine.exec(measured.stdout);
    if (!traffic) throw new Error(`no traffic line in the summary:\n${measured.stdout}`);
    return {
      records: await storedRecords(path),
      seconds: measured.wallSeconds,
      sends: number(traffic[1]) + number(traffic[2]),
      rateLimited: number(traffic[3]),
      pausedSeconds: Number(traffic[4] ?? 0),
    };
  } finally {
    removeSqlite(path);
  }
}

/** Rows the product stored in the REST streams' tables (deleted ones included, as the plain client counts them). */
async function storedRecords(path: string): Promise<number> {
  const store = await openStore(`sqlite:${path}`, { migrate: false });
  try {
    let rows = 0;
    for (const stream of restStreams) rows += await store.countRows(stream, {});
    return rows;
  } finally {
    await store.close();
  }
}
