// npm run bench [-- --records 1000000 --repetitions 3 --skip-postgres --pg-url URL --skip-worker --profile]
// Issue 7: the product's backfill and incremental cycles next to the raw limit and a naive script,
// each in its own process against tms-sim in another, repetitions alternated, medians reported.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { type BackfillContext, type BackfillRow, backfillRows, productFiles } from './backfill-rows.js';
import { buildReport, formatReport, saveReport } from './bench-report.js';
import { measureIncremental } from './incremental.js';
import { connectPgDatabases, defaultPgUrl } from './postgres.js';
import { keptProfile, profileProduct } from './profile-product.js';
import { summarizeBackfill, summarizeIncremental } from './results-table.js';
import type { Sample } from './sample.js';
import { startSimProcess } from './sim-process.js';
import { measureStartup } from './startup-cost.js';
import { measureWorkerCycles } from './worker-cycles.js';

interface BenchFlags {
  records: number;
  repetitions: number;
  skipPostgres?: boolean;
  pgUrl: string;
  profile?: boolean;
  skipWorker?: boolean;
  redisUrl: string;
  out: string;
}

const positive = (value: string) => {
  const number = Number(value.replaceAll('_', ''));
  if (!Number.isSafeInteger(number) || number < 1) throw new InvalidArgumentError('a positive integer');
  return number;
};

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Every row once per repetition, the order rotated so load drift and order effects hit all rows alike. */
async function measureBackfill(
  ctx: BackfillContext,
  rows: readonly BackfillRow[],
  repetitions: number,
): Promise<Map<string, Sample[]>> {
  const samples = new Map<string, Sample[]>(rows.map((row) => [row.id, []]));
  for (let repetition = 0; repetition < repetitions; repetition++) {
    for (let turn = 0; turn < rows.length; turn++) {
      const row = rows[(turn + repetition) % rows.length]!;
      const sample = await row.measure(ctx, repetition);
      samples.get(row.id)!.push(sample);
      const rate = Math.round(sample.records / sample.seconds);
      log(
        `  ${repetition + 1}/${repetitions} ${row.id}: ${rate} records/s, ${sample.peakRssMb.toFixed(0)} MB`,
      );
    }
  }
  return samples;
}

async function main(flags: BenchFlags): Promise<void> {
  const startedAt = performance.now();
  const loadavgBefore = loadavg();
  const workDir = mkdtempSync(join(tmpdir(), 'tms-bench-'));
  const sim = await startSimProcess(flags.records);
  const pg = flags.skipPostgres ? undefined : await connectPgDatabases(flags.pgUrl);
  const ctx: BackfillContext = { sim, workDir, pg };
  try {
    const rows = backfillRows.filter((row) => pg || row.database !== 'postgres');
    log(`tms-sim at ${sim.url} with ${flags.records} invoices; warming it up`);
    await rows[0]!.measure(ctx, -1);
    const summaries = summarizeBackfill(rows, await measureBackfill(ctx, rows, flags.repetitions));
    log('incremental cycles');
    const cycles = await measureIncremental({
      sim,
      storeUrl: `sqlite:${productFiles.at(-1)!}`,
      records: flags.records,
      repetitions: flags.repetitions,
    });
    const backfill = summaries.find((row) => row.id === 'product-sqlite')!;
    summaries.push(...summarizeIncremental(cycles, backfill.seconds));
    if (!flags.skipWorker) {
      log('a 0.1% cycle in a running worker');
      const inWorker = await measureWorkerCycles({
        sim,
        storeUrl: `sqlite:${productFiles.at(-1)!}`,
        records: flags.records,
        repetitions: flags.repetitions,
        redisUrl: flags.redisUrl,
        workDir,
      });
      summaries.push(
        ...summarizeIncremental(inWorker, backfill.seconds, { id: 'worker', label: ', in a running worker' }),
      );
    }
    const startup = await measureStartup(flags.repetitions);
    const profile = flags.profile ? await profileProduct(sim.url, workDir) : undefined;
    const report = buildReport({ ...flags, startedAt, loadavgBefore, rows: summaries, startup, profile });
    saveReport(flags.out, report);
    process.stdout.write(`\n${formatReport(report)}\nfigures written to ${flags.out}\n`);
    if (profile) process.stdout.write(`profile kept at ${keptProfile}\n`);
  } finally {
    await sim.stop();
    await pg?.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main(
  new Command('bench')
    .option('--records <n>', 'invoices in the data set', positive, 200_000)
    .option('--repetitions <n>', 'repetitions of every row', positive, 3)
    .option('--skip-postgres', 'leave out the PostgreSQL rows')
    .option('--pg-url <url>', 'PostgreSQL server for fresh databases (TEST_PG_URL)', defaultPgUrl())
    .option('--profile', 'also run one product backfill with --cpu-prof and list its hottest frames')
    .option('--skip-worker', 'leave out the 0.1% cycle in a running worker (needs Redis)')
    .option('--redis-url <url>', 'Redis for that worker', process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
    .option('--out <path>', 'results file (figures kept per data set size)', 'bench/results.json')
    .parse()
    .opts<BenchFlags>(),
);
