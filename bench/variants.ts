// npx tsx bench/variants.ts --records 200000 --repetitions 5 \
//   --variant 'plain=node dist/tms-sync.js' --variant 'liftoff=node --liftoff-only dist/tms-sync.js'
// Ways of running `tms-sync sync invoices`, each a whole process, beside the plain keep-alive loop,
// interleaved in one run (the order rotated every repetition) against the whole-process rows'
// listing server: what a trick, a flag or another build costs, measured in the same minutes.
// Each repetition: a backfill into a fresh SQLite file, then the same command on the store it
// made (the time to the first request on a current store). Medians; ratios per repetition.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { request } from 'undici';
import type { ListingStats } from './listing-server.js';
import { runMeasured } from './peak-rss.js';
import { median } from './sample.js';
import { startServerProcess } from './server-process.js';
import { removeSqlite } from './sqlite-files.js';

interface Run {
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
  readonly firstRequestSeconds: number;
}

const flags = new Command('variants')
  .option('--records <n>', 'invoices served', (value) => Number(value), 200_000)
  .option('--repetitions <n>', 'repetitions', (value) => Number(value), 5)
  .option(
    '--variant <name=command>',
    'a way of running the product',
    (value, all: string[]) => [...all, value],
    [],
  )
  .parse()
  .opts<{ records: number; repetitions: number; variant: string[] }>();

const variants = [
  { name: 'loop', argv: [process.execPath, 'bench/keepalive-loop.mjs'], loop: true },
  ...flags.variant.map((spec) => {
    const [name, command] = spec.split(/=(.*)/s) as [string, string];
    const [node, ...args] = command.split(/\s+/);
    return { name, argv: [node === 'node' ? process.execPath : node!, ...args], loop: false };
  }),
];

const server = await startServerProcess('bench/listing-server.ts', [
  '--records',
  String(flags.records),
  '--page-cap',
  '500',
  '--latency-ms',
  '0',
]);
const call = async (method: 'GET' | 'POST', path: string) =>
  (await request(`${server.url}${path}`, { method, reset: true })).body.json();
const work = mkdtempSync(join(tmpdir(), 'tms-variants-'));

async function once(variant: (typeof variants)[number], path: string): Promise<Run> {
  await call('POST', '/_bench/reset');
  const spawnedAt = performance.timeOrigin + performance.now();
  const args = variant.loop
    ? [...variant.argv.slice(1), '--url', server.url, '--store', path]
    : [...variant.argv.slice(1), 'sync', 'invoices'];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMS_BASE_URL: server.url,
    TMS_API_TOKEN: 'dev-api-token',
    STORE_URL: `sqlite:${path}`,
    LOG_LEVEL: 'warn',
  };
  delete env.TMS_SYNC_CONFIG;
  const measured = await runMeasured(args, env);
  const stats = (await call('GET', '/_bench/stats')) as ListingStats;
  return {
    wallSeconds: measured.wallSeconds,
    cpuSeconds: measured.cpuSeconds,
    peakRssMb: measured.peakRssMb,
    firstRequestSeconds: ((stats.firstListingAtMs ?? Number.NaN) - spawnedAt) / 1000,
  };
}

const runs = new Map(
  variants.map((variant) => [variant.name, { backfill: [] as Run[], current: [] as Run[] }]),
);
try {
  for (let repetition = -1; repetition < flags.repetitions; repetition++) {
    const order = variants.map((_, i) => variants[(i + Math.max(repetition, 0)) % variants.length]!);
    for (const variant of order) {
      const path = join(work, `${variant.name}.sqlite`);
      try {
        const backfill = await once(variant, path);
        const current = await once(variant, path);
        // Repetition -1 warms the server and the file cache; it is not counted.
        if (repetition < 0) continue;
        runs.get(variant.name)!.backfill.push(backfill);
        runs.get(variant.name)!.current.push(current);
        process.stderr.write(
          `${repetition + 1}/${flags.repetitions} ${variant.name}: ${backfill.wallSeconds.toFixed(2)} s (CPU ${backfill.cpuSeconds.toFixed(2)} s), ` +
            `${backfill.peakRssMb.toFixed(0)} MB; current store ${current.wallSeconds.toFixed(3)} s, first request ${current.firstRequestSeconds.toFixed(3)} s\n`,
        );
      } finally {
        removeSqlite(path);
      }
    }
  }
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}

const loop = runs.get('loop')!;
const med = (runs: readonly Run[], key: keyof Run, digits: number) =>
  median(runs.map((run) => run[key])).toFixed(digits);
console.log(
  `| way of running | wall s (${flags.records.toLocaleString('en')}) | x loop (per repetition) | CPU s | peak RSS MB | current store: wall s | CPU s | first request s |`,
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [name, { backfill, current }] of runs) {
  const ratios = backfill.map((run, i) => loop.backfill[i]!.wallSeconds / run.wallSeconds);
  const spread =
    name === 'loop'
      ? ''
      : `${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
  console.log(
    `| ${name} | ${med(backfill, 'wallSeconds', 2)} | ${spread} | ${med(backfill, 'cpuSeconds', 2)} | ${med(backfill, 'peakRssMb', 0)} | ${med(current, 'wallSeconds', 3)} | ${med(current, 'cpuSeconds', 3)} | ${med(current, 'firstRequestSeconds', 3)} |`,
  );
}
