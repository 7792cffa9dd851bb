// The partitions group (the partitions targets): a TMS with many operators, every stream synced by a whole
// `tms-sync sync` process, beside a plain client that sends the very requests the product sent
// (recorded by the simulator), as many in flight as the product may have (TMS_MAX_CONCURRENCY),
// and stores nothing. Rows: the backfill and the idle cycle after it, per operator count.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runMeasured } from './peak-rss.js';
import { median } from './sample.js';
import { type SimProcess, startSimProcess } from './sim-process.js';
import { removeSqlite } from './sqlite-files.js';

/** What a row compares: the product's whole process against the plain client sending its requests. */
export interface PartitionCycle {
  readonly requests: number;
  readonly productSeconds: number;
  readonly productCpuSeconds: number;
  readonly productPeakRssMb: number;
  /** From the plain client's first request to its last answer (no start-up). */
  readonly plainSeconds: number;
  /** The plain client's whole process, as the product's is measured. */
  readonly plainWallSeconds?: number;
  readonly plainCpuSeconds: number;
}

export interface PartitionRow {
  readonly operators: number;
  readonly partitions: number;
  /** Each field the median of the row's cycles (so its seconds may come from different cycles). */
  readonly backfill: PartitionCycle;
  readonly idle: PartitionCycle;
  /**
   * The median of each cycle's own ratio, the product's whole process against the plain client
   * that replayed that cycle's requests the same minute (results before 2026-12-03 lack them: the
   * report then divides the medians).
   */
  readonly backfillRatio?: number;
  readonly idleRatio?: number;
  /** The simulator's CPU over the idle cycle's wall time: near 1 means it was the bottleneck. */
  readonly simBusy: number;
  /** Idle cycles run again and again in one process (warm-cycles.ts), after the last repetition. */
  readonly warm?: WarmCycles;
}

/**
 * What an idle cycle costs once V8 has compiled the engine: cycles run one after the other in one
 * process (bench/warm-cycles.ts), beside the first of them, which pays for the compiling that
 * every one-shot `tms-sync sync` pays.
 */
export interface WarmCycles {
  readonly cycles: number;
  /** The first cycle of the process (its start not included). */
  readonly firstSeconds: number;
  /** The median of the cycles after the first. */
  readonly seconds: number;
  readonly cpuSeconds: number;
  /** `seconds` against the median of the idle rows' plain client (its span). */
  readonly ratio: number;
}

export interface PartitionOptions {
  readonly operators: readonly number[];
  readonly repetitions: number;
  /**
   * Idle cycles after each backfill, each beside the plain client sending its requests: one idle
   * cycle's ratio spread 1.11x-1.52x between runs on one machine (BENCHMARKS.md, "dispatched
   * sends"), so the row is their median. @default 3
   */
  readonly idleRepetitions?: number;
  /**
   * Backfills of each row, each into a fresh store, the row giving their medians (time, CPU, peak
   * RSS); the idle cycles follow the last. One backfill's peak RSS at 2,000 operators spread over
   * 186-250 MB between runs of the same code (BENCHMARKS.md, "2026-12-03 (three backfills a row)").
   * @default 3
   */
  readonly backfills?: number;
  readonly workDir: string;
  /** Requests in flight of both (the product's TMS_MAX_CONCURRENCY). @default 16 */
  readonly concurrency?: number;
  readonly log: (line: string) => void;
}

/** The data set of every row but the operators: 200 invoices and clients, operators with today's rides. */
export const partitionData = { invoices: 200, clients: 200, rideDays: 1 } as const;

export function operatorIds(count: number): string {
  return Array.from({ length: count }, (_, i) => String(1001 + i)).join(',');
}

export async function measurePartitions(options: PartitionOptions): Promise<PartitionRow[]> {
  const rows: PartitionRow[] = [];
  for (const operators of options.operators) {
    const sim = await startSimProcess({ ...partitionData, operators, record: true });
    try {
      rows.push(await measureOperators(sim, operators, options));
    } finally {
      await sim.stop();
    }
  }
  return rows;
}

/** The store of the last backfill at `operators` (the worker rows start from it). */
export function partitionStore(workDir: string, operators: number, repetition: number): string {
  return join(workDir, `partitions-${operators}-${repetition}.sqlite`);
}

async function measureOperators(sim: SimProcess, operators: number, options: PartitionOptions) {
  const backfills: PartitionCycle[] = [];
  const idles: PartitionCycle[] = [];
  const simBusy: number[] = [];
  let partitions = 0;
  for (let repetition = 0; repetition < options.repetitions; repetition++) {
    const store = partitionStore(options.workDir, operators, repetition);
    const env = productEnv(sim, operators, `sqlite:${store}`, options);
    const backfilled: string[] = [];
    for (let attempt = 0; attempt < (options.backfills ?? 3); attempt++) {
      removeSqlite(store);
      const backfill = await cycle(sim, env, options, `backfill-${operators}-${repetition}-${attempt}`);
      backfills.push(backfill.cycle);
      backfilled.push(
        `${backfill.cycle.productSeconds.toFixed(1)} s ${backfill.cycle.productPeakRssMb.toFixed(0)} MB`,
      );
      partitions = backfill.partitions;
    }
    const idleCycles: string[] = [];
    for (let idleRepetition = 0; idleRepetition < (options.idleRepetitions ?? 3); idleRepetition++) {
      const simBefore = sim.cpuSeconds();
      const idle = await cycle(sim, env, options, `idle-${operators}-${repetition}-${idleRepetition}`);
      simBusy.push(
        (sim.cpuSeconds() - simBefore) / (idle.cycle.productSeconds + idle.cycle.plainWallSeconds!),
      );
      idles.push(idle.cycle);
      idleCycles.push(
        `${idle.cycle.productSeconds.toFixed(1)} s (plain ${idle.cycle.plainSeconds.toFixed(1)} s, its whole process ${idle.cycle.plainWallSeconds!.toFixed(1)} s)`,
      );
    }
    options.log(
      `  ${operators} operators, ${partitions} partitions: backfills ${backfilled.join(', ')} (plain ${backfills.at(-1)!.plainSeconds.toFixed(1)} s), idle ${idleCycles.join(', ')}, ${idles.at(-1)!.requests} requests`,
    );
  }
  const idle = medianCycle(idles);
  const warm = await warmCycles(
    productEnv(
      sim,
      operators,
      `sqlite:${partitionStore(options.workDir, operators, options.repetitions - 1)}`,
      options,
    ),
    idle.plainSeconds,
  );
  options.log(
    `  ${operators} operators, warm: the first cycle of one process ${warm.firstSeconds.toFixed(1)} s, the next ${warm.seconds.toFixed(1)} s (CPU ${warm.cpuSeconds.toFixed(1)} s), ${warm.ratio.toFixed(2)}x the plain client`,
  );
  return {
    operators,
    partitions,
    backfill: medianCycle(backfills),
    idle,
    warm,
    backfillRatio: median(backfills.map(ownRatio)),
    idleRatio: median(idles.map(ownRatio)),
    simBusy: median(simBusy),
  };
}

/** One product run, then the plain client sending the requests it sent. */
async function cycle(sim: SimProcess, env: NodeJS.ProcessEnv, options: PartitionOptions, name: string) {
  await sim.recordedRequests();
  const product = await runMeasured(['dist/tms-sync.js', 'sync'], env);
  const requests = await sim.recordedRequests();
  const file = join(options.workDir, `${name}.requests`);
  writeFileSync(file, requests);
  const plain = await runMeasured([
    'bench/replay-client.mjs',
    ...['--url', sim.url, '--requests', file, '--concurrency', String(options.concurrency ?? 16)],
  ]);
  const replayed = JSON.parse(plain.stdout.trim().split('\n').at(-1)!) as {
    requests: number;
    seconds: number;
    cpuSeconds: number;
  };
  await sim.recordedRequests();
  return {
    partitions: Number(/(\d[\d,]*) partitions? of \d/.exec(product.stdout)?.[1]?.replaceAll(',', '') ?? 0),
    cycle: {
      requests: replayed.requests,
      productSeconds: product.wallSeconds,
      productCpuSeconds: product.cpuSeconds,
      productPeakRssMb: product.peakRssMb,
      plainSeconds: replayed.seconds,
      plainWallSeconds: plain.wallSeconds,
      plainCpuSeconds: replayed.cpuSeconds,
    },
  };
}

function productEnv(sim: SimProcess, operators: number, storeUrl: string, options: PartitionOptions) {
  return {
    ...process.env,
    TMS_BASE_URL: sim.url,
    TMS_API_TOKEN: 'dev-api-token',
    TMS_OPERATORS: operatorIds(operators),
    TMS_MAX_CONCURRENCY: String(options.concurrency ?? 16),
    STORE_URL: storeUrl,
    LOG_LEVEL: 'warn',
  };
}

/** Four idle cycles in one process (bench/warm-cycles.ts, under tsx as the bench runs). */
async function warmCycles(env: NodeJS.ProcessEnv, plainSeconds: number): Promise<WarmCycles> {
  const cycles = 4;
  const { stdout } = await runMeasured(
    ['--import', 'tsx', 'bench/warm-cycles.ts', '--cycles', String(cycles)],
    env,
  );
  const measured = [...stdout.matchAll(/^cycle \d+: .*, ([\d.]+) s, CPU ([\d.]+) s$/gm)].map((match) => ({
    seconds: Number(match[1]),
    cpuSeconds: Number(match[2]),
  }));
  if (measured.length !== cycles)
    throw new Error(`warm-cycles.ts printed ${measured.length} cycles: ${stdout}`);
  const later = measured.slice(1);
  const seconds = median(later.map((cycle) => cycle.seconds));
  return {
    cycles,
    firstSeconds: measured[0]!.seconds,
    seconds,
    cpuSeconds: median(later.map((cycle) => cycle.cpuSeconds)),
    ratio: seconds / plainSeconds,
  };
}

/** A cycle against the plain client that replayed its requests right after it. */
function ownRatio(cycle: PartitionCycle): number {
  return cycle.productSeconds / cycle.plainSeconds;
}

function medianCycle(cycles: readonly PartitionCycle[]): PartitionCycle {
  const of = (pick: (cycle: PartitionCycle) => number) => median(cycles.map(pick));
  return {
    requests: of((c) => c.requests),
    productSeconds: of((c) => c.productSeconds),
    productCpuSeconds: of((c) => c.productCpuSeconds),
    productPeakRssMb: of((c) => c.productPeakRssMb),
    plainSeconds: of((c) => c.plainSeconds),
    plainWallSeconds: of((c) => c.plainWallSeconds ?? Number.NaN),
    plainCpuSeconds: of((c) => c.plainCpuSeconds),
  };
}
