import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import type { ListingStats } from './listing-server.js';
import { runMeasured } from './peak-rss.js';
import { lastRunId, runsSince } from './product-run.js';
import type { Sample } from './sample.js';
import { type ServerProcess, startServerProcess } from './server-process.js';
import { removeSqlite } from './sqlite-files.js';

/** The speed targets: what a user times, `time tms-sync sync invoices`, beside a plain loop's process. */
export interface WholeProcessOptions {
  readonly records: number;
  readonly repetitions: number;
  readonly workDir: string;
  /** The listing server's cap on a page (the product asks its own `sync.pageLimit`). @default 500 */
  readonly pageCap?: number;
  readonly log: (line: string) => void;
}

/** One repetition of a whole-process row: `seconds` is the whole process, as a user times it. */
export interface WholeProcessSample extends Sample {
  /** From the process's spawn to the first listing request the server saw. */
  readonly firstRequestSeconds: number;
}

export type WholeProcessRowId =
  | 'loop-whole'
  | 'product-whole'
  | 'loop-current'
  | 'product-current'
  | 'loop-far'
  | 'product-far';

/** The TMS of the `-far` rows: this far away (every listing answer waits so long), with a quarter of the records. */
const farLatencyMs = 10;

export const wholeProcessLabels: Record<WholeProcessRowId, string> = {
  'loop-whole': 'plain keep-alive loop, whole process (listing server)',
  'product-whole': 'tms-sync sync invoices, whole process (listing server)',
  'loop-current': 'plain keep-alive loop, whole process, store current',
  'product-current': 'tms-sync sync invoices, whole process, store current',
  'loop-far': `plain keep-alive loop, whole process, ${farLatencyMs} ms away (a quarter of the records)`,
  'product-far': `tms-sync sync invoices, whole process, ${farLatencyMs} ms away (a quarter of the records)`,
};

interface Contender {
  /** Runs one whole process against the server into the SQLite file; answers what it wrote. */
  run(url: string, path: string): Promise<{ wallSeconds: number; peakRssMb: number; records: number }>;
}

const loop: Contender = {
  async run(url, path) {
    const measured = await runMeasured(['bench/keepalive-loop.mjs', '--url', url, '--store', path]);
    const { records } = JSON.parse(measured.stdout.trim().split('\n').at(-1)!) as { records: number };
    return { ...measured, records };
  },
};

const product: Contender = {
  async run(url, path) {
    const storeUrl = `sqlite:${path}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TMS_BASE_URL: url,
      TMS_API_TOKEN: 'dev-api-token',
      STORE_URL: storeUrl,
      LOG_LEVEL: 'warn',
    };
    delete env.TMS_SYNC_CONFIG;
    const afterRunId = existsSync(path) ? await lastRunId(storeUrl) : 0;
    const measured = await runMeasured(['dist/tms-sync.js', 'sync', 'invoices'], env);
    const runs = await runsSince(storeUrl, afterRunId);
    return { ...measured, records: runs.records };
  },
};

/**
 * The plain loop and the product, each as a whole process against the same listing server (not
 * tms-sim: bench/listing-server.ts), into a fresh SQLite file, then once more on the store they
 * made (nothing to fetch: the time to the first request and the fixed cost of a run); then both
 * again against a server 10 ms away, where what counts is whether the next page's round trip
 * overlaps the work on this one. Rows alternate within each repetition, the order swapped every
 * repetition.
 */
export async function measureWholeProcess(
  options: WholeProcessOptions,
): Promise<Map<WholeProcessRowId, WholeProcessSample[]>> {
  const samples = new Map<WholeProcessRowId, WholeProcessSample[]>(
    Object.keys(wholeProcessLabels).map((id) => [id as WholeProcessRowId, []]),
  );
  const near = await listingServer(options.records, 0, options.pageCap);
  try {
    await once(near, product, join(options.workDir, 'warm-up.sqlite'));
    await alternate(options, async (name, contender, path) => {
      const backfill = await once(near, contender, path);
      const current = await once(near, contender, path);
      samples.get(`${name}-whole`)!.push(backfill);
      samples.get(`${name}-current`)!.push(current);
      return `${Math.round(backfill.records / backfill.seconds)} records/s whole process, first request after ${backfill.firstRequestSeconds.toFixed(2)} s (${current.firstRequestSeconds.toFixed(2)} s on a current store)`;
    });
  } finally {
    await near.stop();
    removeSqlite(join(options.workDir, 'warm-up.sqlite'));
  }
  const far = await listingServer(Math.ceil(options.records / 4), farLatencyMs, options.pageCap);
  try {
    await alternate(options, async (name, contender, path) => {
      const backfill = await once(far, contender, path);
      samples.get(`${name}-far`)!.push(backfill);
      return `${Math.round(backfill.records / backfill.seconds)} records/s whole process, ${farLatencyMs} ms away`;
    });
  } finally {
    await far.stop();
  }
  return samples;
}

function listingServer(records: number, latencyMs: number, pageCap = 500): Promise<ServerProcess> {
  return startServerProcess('bench/listing-server.ts', [
    '--records',
    String(records),
    '--page-cap',
    String(pageCap),
    '--latency-ms',
    String(latencyMs),
  ]);
}

/** Each repetition runs the loop and the product once each into a fresh file, the order swapped every time. */
async function alternate(
  options: WholeProcessOptions,
  run: (name: 'loop' | 'product', contender: Contender, path: string) => Promise<string>,
): Promise<void> {
  const contenders: Array<['loop' | 'product', Contender]> = [
    ['loop', loop],
    ['product', product],
  ];
  for (let repetition = 0; repetition < options.repetitions; repetition++) {
    const order = repetition % 2 === 0 ? contenders : [...contenders].reverse();
    for (const [name, contender] of order) {
      const path = join(options.workDir, `${name}-whole-${repetition}.sqlite`);
      try {
        options.log(
          `  ${repetition + 1}/${options.repetitions} ${name}: ${await run(name, contender, path)}`,
        );
      } finally {
        removeSqlite(path);
      }
    }
  }
}

async function once(server: ServerProcess, contender: Contender, path: string): Promise<WholeProcessSample> {
  await call(server, 'POST', '/_bench/reset');
  const cpu = server.cpuSeconds();
  const spawnedAt = performance.timeOrigin + performance.now();
  const run = await contender.run(server.url, path);
  const stats = (await call(server, 'GET', '/_bench/stats')) as ListingStats;
  if (run.records !== stats.items)
    throw new Error(`${run.records} records written of the ${stats.items} the server sent`);
  return {
    records: run.records,
    pages: stats.listingRequests,
    requests: stats.listingRequests + stats.logins,
    seconds: run.wallSeconds,
    wallSeconds: run.wallSeconds,
    peakRssMb: run.peakRssMb,
    simCpuSeconds: server.cpuSeconds() - cpu,
    firstRequestSeconds: ((stats.firstListingAtMs ?? Number.NaN) - spawnedAt) / 1000,
  };
}

async function call(server: ServerProcess, method: 'GET' | 'POST', path: string): Promise<unknown> {
  const response = await request(`${server.url}${path}`, { method, reset: true });
  return response.body.json();
}
