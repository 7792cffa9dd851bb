// npm run bench [-- --only backfill,incremental,whole-process,children,faults --records 200000 ...]
// The product's backfill and incremental cycles next to the raw limit and a
// naive script; whole processes next to a plain loop against a server that is not tms-sim; child
// streams against latency and a rate limit; a flaky TMS next to a plain client; many
// operators (partitions) next to a plain client sending the same requests, and the worker at that size. Every row runs in
// its own process against servers in others, repetitions alternated, medians reported.
// Longer than 300 lines on purpose: this is the bench's one entry, its flags and the order of its
// groups in one place (BENCHMARKS.md, "Running it", is this file's manual); each group's rows
// live in a file of their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { type BackfillContext, type BackfillRow, backfillRows, productFiles } from './backfill-rows.js';
import { buildReport, formatReport, saveReport } from './bench-report.js';
import { measureChildren } from './children-rows.js';
import { type ConnectionFleetRow, measureConnectionFleet } from './connection-fleet.js';
import { formatConnections } from './connection-report.js';
import { measureFaults } from './fault-rows.js';
import { measureFleetWorker } from './fleet-worker.js';
import { summarizeChildren, summarizeFaults, summarizeWholeProcess } from './group-summaries.js';
import { type HistorySummary, measureHistory, summarizeHistory } from './history-rows.js';
import { measureIncremental } from './incremental.js';
import type { PartitionGroup } from './partition-report.js';
import { measurePartitions, partitionData, partitionStore } from './partition-rows.js';
import { connectPgDatabases, defaultPgUrl, type PgDatabases } from './postgres.js';
import { keptProfile, profileProduct } from './profile-product.js';
import type { HotFrame } from './profile-top.js';
import { type RowSummary, summarizeBackfill, summarizeIncremental } from './results-table.js';
import type { Sample } from './sample.js';
import { type SimProcess, startSimProcess } from './sim-process.js';
import { measureStartup } from './startup-cost.js';
import { measureWholeProcess } from './whole-process.js';
import { measureWorkerCycles } from './worker-cycles.js';

const groupNames = [
  'backfill',
  'incremental',
  'whole-process',
  'children',
  'faults',
  'history',
  'partitions',
  'connections',
] as const;
type Group = (typeof groupNames)[number];

/** The limit of the children rows (b), (c): the speed targets' 300 requests per second. */
const childLimit = 300;

interface BenchFlags {
  only: Group[];
  records: number;
  repetitions: number;
  longRepetitions: number;
  childInvoices: number;
  childClients: number;
  faultInvoices: number;
  faultClients: number;
  skipPostgres?: boolean;
  pgUrl: string;
  profile?: boolean;
  skipWorker?: boolean;
  redisUrl: string;
  out: string;
  partitionOperators: number[];
  idleRepetitions: number;
  partitionBackfills: number;
  fleetInterval: number;
  workerLogs?: string;
  connectionCounts: number[];
  connectionWorkers: number;
  connectionInterval: number;
  connectionSteadyMinutes: number;
  connectionBesideMinutes: number;
  connectionBigInvoices: number;
}

const positive = (value: string) => {
  const number = Number(value.replaceAll('_', ''));
  if (!Number.isSafeInteger(number) || number < 1) throw new InvalidArgumentError('a positive integer');
  return number;
};

const counts = (value: string): number[] => value.split(',').map((part) => positive(part.trim()));

const groups = (value: string): Group[] => {
  const named = value.split(',').map((name) => name.trim());
  const unknown = named.filter((name) => !(groupNames as readonly string[]).includes(name));
  if (unknown.length > 0 || named.length === 0)
    throw new InvalidArgumentError(`groups from ${groupNames.join(', ')} (comma-separated)`);
  return named as Group[];
};

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The partitions group: product and plain client per operator count, then the worker at the largest. */
async function partitionsGroup(flags: BenchFlags, workDir: string): Promise<PartitionGroup> {
  const operators = flags.partitionOperators;
  log(`partitions: ${operators.join(', ')} operators`);
  const rows = await measurePartitions({
    operators,
    repetitions: 1,
    idleRepetitions: flags.idleRepetitions,
    backfills: flags.partitionBackfills,
    workDir,
    log,
  });
  if (flags.skipWorker) return { rows };
  const largest = Math.max(...operators);
  log(`the worker at ${largest} operators, every ${flags.fleetInterval} s`);
  const sim = await startSimProcess({ ...partitionData, operators: largest });
  try {
    const worker = await measureFleetWorker({
      sim,
      operators: largest,
      storePath: partitionStore(workDir, largest, 0),
      redisUrl: flags.redisUrl,
      workDir,
      intervalSeconds: flags.fleetInterval,
      log,
    });
    return { rows, worker };
  } finally {
    await sim.stop();
  }
}

/** The connections group: the fleet at each connection count; the big backfill and drills beside the largest. */
async function connectionsGroup(flags: BenchFlags, workDir: string): Promise<ConnectionFleetRow[]> {
  const counts = flags.connectionCounts;
  const largest = Math.max(...counts);
  const pg = await connectPgDatabases(flags.pgUrl);
  const rows: ConnectionFleetRow[] = [];
  try {
    for (const connections of counts) {
      log(`connections: ${connections} accounts, ${flags.connectionWorkers} workers`);
      const row = await measureConnectionFleet({
        connections,
        workers: flags.connectionWorkers,
        intervalSeconds: flags.connectionInterval,
        steadyMinutes: flags.connectionSteadyMinutes,
        ...(connections === largest
          ? {
              beside: { invoices: flags.connectionBigInvoices, minutes: flags.connectionBesideMinutes },
            }
          : {}),
        pg,
        redisUrl: flags.redisUrl,
        workDir,
        workerLogs: flags.workerLogs && join(flags.workerLogs, `connections-${connections}`),
        log,
      });
      rows.push(row);
      // Printed as it ends: a later count that cannot finish (a small machine) loses no figure.
      log(`${formatConnections([row])}\n${JSON.stringify(row)}`);
    }
    return rows;
  } finally {
    await pg.close();
  }
}

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

/** The backfill and incremental groups, on one simulator of `--records` invoices. */
async function measureCycles(
  flags: BenchFlags,
  workDir: string,
): Promise<{ rows: RowSummary[]; profile: HotFrame[] | undefined }> {
  const sim = await startSimProcess({ invoices: flags.records });
  const backfill = flags.only.includes('backfill');
  const pg: PgDatabases | undefined =
    flags.skipPostgres || !backfill ? undefined : await connectPgDatabases(flags.pgUrl);
  try {
    const ctx: BackfillContext = { sim, workDir, pg };
    const product = backfillRows.find((row) => row.id === 'product-sqlite')!;
    log(`tms-sim at ${sim.url} with ${flags.records} invoices; warming it up`);
    await backfillRows[0]!.measure(ctx, -1);
    const rows = backfillRows.filter((row) => pg || row.database !== 'postgres');
    const summaries = backfill
      ? summarizeBackfill(rows, await measureBackfill(ctx, rows, flags.repetitions))
      : [];
    if (flags.only.includes('incremental')) {
      // The cycles run on the store of the last product backfill, and compare with its time.
      const backfillSeconds =
        summaries.find((row) => row.id === 'product-sqlite')?.seconds ??
        (await product.measure(ctx, 0)).seconds;
      summaries.push(...(await incrementalRows(flags, sim, workDir, backfillSeconds)));
    }
    const profile = flags.profile ? await profileProduct(sim.url, workDir) : undefined;
    return { rows: summaries, profile };
  } finally {
    await sim.stop();
    await pg?.close();
  }
}

async function incrementalRows(
  flags: BenchFlags,
  sim: SimProcess,
  workDir: string,
  backfillSeconds: number,
): Promise<RowSummary[]> {
  log('incremental cycles');
  const storeUrl = `sqlite:${productFiles.at(-1)!}`;
  const rows = summarizeIncremental(
    await measureIncremental({ sim, storeUrl, records: flags.records, repetitions: flags.repetitions }),
    backfillSeconds,
  );
  if (!flags.skipWorker) {
    log('a 0.1% cycle in a running worker');
    const inWorker = await measureWorkerCycles({
      sim,
      storeUrl,
      records: flags.records,
      repetitions: flags.repetitions,
      redisUrl: flags.redisUrl,
      workDir,
    });
    rows.push(
      ...summarizeIncremental(inWorker, backfillSeconds, { id: 'worker', label: ', in a running worker' }),
    );
  }
  return rows;
}

/** The history group: backfill and 1% cycle with history mode on and off, on its own simulator. */
async function historyGroup(flags: BenchFlags, workDir: string): Promise<HistorySummary[]> {
  log(`history mode: ${flags.records} invoices`);
  const sim = await startSimProcess({ invoices: flags.records });
  const pg = flags.skipPostgres ? undefined : await connectPgDatabases(flags.pgUrl);
  try {
    await backfillRows[0]!.measure({ sim, workDir, pg }, -1);
    const samples = await measureHistory({
      sim,
      workDir,
      pg,
      records: flags.records,
      repetitions: flags.repetitions,
      log,
    });
    return summarizeHistory(samples);
  } finally {
    await sim.stop();
    await pg?.close();
  }
}

async function main(flags: BenchFlags): Promise<void> {
  const startedAt = performance.now();
  const loadavgBefore = loadavg();
  const workDir = mkdtempSync(join(tmpdir(), 'tms-bench-'));
  const only = (group: Group) => flags.only.includes(group);
  try {
    const cycles = only('backfill') || only('incremental') ? await measureCycles(flags, workDir) : undefined;
    const rows = cycles?.rows;
    if (only('whole-process')) log('whole processes against the listing server');
    const wholeProcess = only('whole-process')
      ? summarizeWholeProcess(
          await measureWholeProcess({ records: flags.records, repetitions: flags.repetitions, workDir, log }),
        )
      : undefined;
    if (only('children'))
      log(`child streams of ${flags.childInvoices} invoices, ${flags.childClients} clients`);
    const children = only('children')
      ? {
          invoices: flags.childInvoices,
          clients: flags.childClients,
          rows: summarizeChildren(
            await measureChildren({
              invoices: flags.childInvoices,
              clients: flags.childClients,
              repetitions: flags.longRepetitions,
              workDir,
              redisUrl: flags.skipWorker ? undefined : flags.redisUrl,
              rateLimit: childLimit,
              untold: true,
              log,
            }),
            childLimit,
          ),
        }
      : undefined;
    if (only('faults')) log(`faults: ${flags.faultInvoices} invoices, ${flags.faultClients} clients`);
    const faults = only('faults')
      ? {
          invoices: flags.faultInvoices,
          clients: flags.faultClients,
          rows: summarizeFaults(
            await measureFaults({
              invoices: flags.faultInvoices,
              clients: flags.faultClients,
              repetitions: flags.longRepetitions,
              workDir,
              log,
            }),
          ),
        }
      : undefined;
    const history = only('history') ? await historyGroup(flags, workDir) : undefined;
    const partitions = only('partitions') ? await partitionsGroup(flags, workDir) : undefined;
    const connections = only('connections') ? await connectionsGroup(flags, workDir) : undefined;
    const startup = await measureStartup(flags.repetitions);
    const profile = cycles?.profile;
    const report = buildReport({
      records: flags.records,
      repetitions: flags.repetitions,
      groups: flags.only,
      startedAt,
      loadavgBefore,
      rows,
      wholeProcess,
      children,
      faults,
      history,
      partitions,
      connections,
      limit: childLimit,
      startup,
      profile,
    });
    saveReport(flags.out, report);
    process.stdout.write(`\n${formatReport(report)}\nfigures written to ${flags.out}\n`);
    if (profile) process.stdout.write(`profile kept at ${keptProfile}\n`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main(
  new Command('bench')
    .option(
      '--only <groups>',
      `groups of rows, comma-separated: ${groupNames.join(', ')} (default: all but connections, which takes half an hour)`,
      groups,
      groupNames.filter((name) => name !== 'connections'),
    )
    .option(
      '--records <n>',
      'invoices of the backfill, incremental and whole-process rows',
      positive,
      200_000,
    )
    .option(
      '--repetitions <n>',
      'repetitions of the backfill, incremental and whole-process rows',
      positive,
      3,
    )
    .option(
      '--long-repetitions <n>',
      'repetitions of the children and fault rows (minutes each)',
      positive,
      1,
    )
    .option(
      '--child-invoices <n>',
      'invoices of the children rows (the speed targets: 20000)',
      positive,
      4000,
    )
    .option('--child-clients <n>', 'clients of the children rows (the speed targets: 10000)', positive, 2000)
    .option('--fault-invoices <n>', 'invoices of the fault rows (the fault targets: 400)', positive, 100)
    .option('--fault-clients <n>', 'clients of the fault rows (the fault targets: 400)', positive, 100)
    .option('--skip-postgres', 'leave out the PostgreSQL rows')
    .option('--pg-url <url>', 'PostgreSQL server for fresh databases (TEST_PG_URL)', defaultPgUrl())
    .option(
      '--profile',
      'with backfill or incremental: one more product backfill with --cpu-prof, its hottest frames',
    )
    .option(
      '--skip-worker',
      'leave out the rows that need Redis (the worker cycle, two workers sharing a budget)',
    )
    .option(
      '--partition-operators <counts>',
      'operator counts of the partitions rows (comma-separated)',
      counts,
      [50, 500, 2000],
    )
    .option(
      '--idle-repetitions <n>',
      'idle cycles after each backfill of the partitions rows, each beside its plain client (medians reported)',
      positive,
      3,
    )
    .option(
      '--partition-backfills <n>',
      'backfills of each partitions row, each into a fresh store (medians reported; the idle cycles follow the last)',
      positive,
      3,
    )
    .option('--fleet-interval <seconds>', 'schedule of the worker row of the partitions group', positive, 300)
    .option(
      '--connection-counts <counts>',
      'connection counts of the connections group (comma-separated; the largest also gets the big backfill and the drills)',
      counts,
      [20, 200],
    )
    .option('--connection-workers <n>', 'worker processes of the connections group', positive, 4)
    .option(
      '--connection-interval <seconds>',
      'schedule of every partition of the connections group',
      positive,
      60,
    )
    .option(
      '--connection-steady-minutes <n>',
      'minutes of cycles measured once every backfill is done, per connection count',
      positive,
      3,
    )
    .option(
      '--connection-beside-minutes <n>',
      'minutes of cycles beside the big backfill, at the largest count',
      positive,
      7,
    )
    .option('--connection-big-invoices <n>', 'invoices of the big connection', positive, 200_000)
    .option(
      '--worker-logs <dir>',
      'keep the output of every worker of the connections group there (one file a process; default: dropped)',
    )
    .option('--redis-url <url>', 'Redis for the workers', process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
    .option('--out <path>', 'results file (figures kept per data set size)', 'bench/results.json')
    .parse()
    .opts<BenchFlags>(),
);
