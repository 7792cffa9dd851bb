import type { FleetWorkerRow } from './fleet-worker.js';
import type { PartitionCycle, PartitionRow } from './partition-rows.js';
import type { TargetCheck } from './targets.js';

/** The partitions group as results.json keeps it. */
export interface PartitionGroup {
  readonly rows: readonly PartitionRow[];
  readonly worker?: FleetWorkerRow | undefined;
}

const ratio = (cycle: PartitionCycle) => cycle.productSeconds / cycle.plainSeconds;
/** The median of the cycles' own ratios (partition-rows.ts), else, in older results, the medians divided. */
const idleRatio = (row: PartitionRow) => row.idleRatio ?? ratio(row.idle);
const backfillRatio = (row: PartitionRow) => row.backfillRatio ?? ratio(row.backfill);
/** Both whole processes (results of before 2026-11-28 lack the plain one's: NaN). */
const wholeRatio = (cycle: PartitionCycle) => cycle.productSeconds / (cycle.plainWallSeconds ?? Number.NaN);
const cpuPerRequestMs = (cycle: PartitionCycle) => (cycle.productCpuSeconds * 1000) / cycle.requests;
const peakRss = (row: PartitionRow) => Math.max(row.backfill.productPeakRssMb, row.idle.productPeakRssMb);

export function formatPartitions(group: PartitionGroup): string {
  const header = [
    'operators',
    'partitions',
    'backfill s (plain)',
    'x',
    'idle requests',
    'idle s (plain)',
    'x',
    'plain whole process s',
    'x',
    'CPU ms/request (plain)',
    'peak RSS MB',
    'sim busy',
  ];
  const rows = group.rows.map((row) => [
    String(row.operators),
    String(row.partitions),
    `${row.backfill.productSeconds.toFixed(1)} (${row.backfill.plainSeconds.toFixed(1)})`,
    `${backfillRatio(row).toFixed(2)}x`,
    String(row.idle.requests),
    `${row.idle.productSeconds.toFixed(1)} (${row.idle.plainSeconds.toFixed(1)})`,
    `${idleRatio(row).toFixed(2)}x`,
    (row.idle.plainWallSeconds ?? Number.NaN).toFixed(1),
    `${wholeRatio(row.idle).toFixed(2)}x`,
    `${cpuPerRequestMs(row.idle).toFixed(2)} (${((row.idle.plainCpuSeconds * 1000) / row.idle.requests).toFixed(2)})`,
    peakRss(row).toFixed(0),
    `${(row.simBusy * 100).toFixed(0)}%`,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i]!)).join('  ');
  const lines = [line(header), ...rows.map(line)];
  const warm = group.rows.filter((row) => row.warm);
  if (warm.length > 0)
    lines.push(
      '',
      'warm: idle cycles one after the other in one process (bench/warm-cycles.ts), the first and the median of the others, beside the plain client:',
      ...warm.map(
        ({ operators, warm: cycles }) =>
          `  ${operators} operators: first ${cycles!.firstSeconds.toFixed(1)} s, the ${cycles!.cycles - 1} next ${cycles!.seconds.toFixed(1)} s (CPU ${cycles!.cpuSeconds.toFixed(1)} s), ${cycles!.ratio.toFixed(2)}x`,
      ),
    );
  const worker = group.worker;
  if (worker)
    lines.push(
      '',
      `worker at ${worker.operators} operators (${worker.partitions} partitions, every ${worker.intervalSeconds} s, concurrency ${worker.concurrency}):`,
      `  started in ${worker.startSeconds.toFixed(1)} s with ${worker.schedulers} schedulers; one cycle of every partition ${worker.cycleSeconds.toFixed(0)} s (${worker.runs} runs), the last job started ${worker.longestWaitSeconds.toFixed(0)} s after the first, ${worker.failedRuns} failed`,
      `  Redis ${worker.redisMemoryMb.toFixed(1)} MB in ${worker.redisKeys} keys (${((worker.redisMemoryMb * 1000) / worker.partitions).toFixed(2)} MB per 1,000 partitions); /metrics ${worker.metricsSeconds.toFixed(2)} s${samplesText(worker.metricsSamples)} (${(worker.metricsBytes / 1e6).toFixed(1)} MB); status ${worker.statusSeconds.toFixed(2)} s${samplesText(worker.statusSamples)}; worker ${worker.workerCpuSeconds.toFixed(0)} s CPU, ${worker.workerRssMb.toFixed(0)} MB peak RSS`,
    );
  return lines.join('\n');
}

/** The partitions targets (BENCHMARKS.md, Targets) that this group's rows answer. */
export function checkPartitionTargets(group: PartitionGroup): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const at = (operators: number) => group.rows.find((row) => row.operators === operators);
  const mid = at(500);
  if (mid)
    checks.push({
      target: 'idle cycle at 500 operators <= 1.25x the plain client',
      measured: `${idleRatio(mid).toFixed(2)}x`,
      met: idleRatio(mid) <= 1.25,
    });
  const small = at(50);
  const large = at(2000);
  if (small && large) {
    const cpu = cpuPerRequestMs(large.idle) / cpuPerRequestMs(small.idle);
    checks.push({
      target: 'CPU per request at 2,000 operators within 1.2x of 50',
      measured: `${cpu.toFixed(2)}x`,
      met: cpu <= 1.2,
    });
    const rss = peakRss(large) / peakRss(small);
    checks.push({
      target: 'peak RSS at 2,000 operators within 1.5x of 50',
      measured: `${rss.toFixed(2)}x`,
      met: rss <= 1.5,
    });
  }
  const worker = group.worker;
  if (worker) {
    checks.push(
      {
        target: 'worker: no job of a cycle waits more than one interval',
        measured: `${worker.longestWaitSeconds.toFixed(0)} s of ${worker.intervalSeconds} s`,
        met: worker.longestWaitSeconds <= worker.intervalSeconds && worker.failedRuns === 0,
      },
      {
        target: 'worker: status answers in under 2 s',
        measured: `${worker.statusSeconds.toFixed(2)} s${samplesText(worker.statusSamples)}`,
        met: worker.statusSeconds < 2,
      },
      {
        target: 'worker: a /metrics scrape in under 1 s',
        measured: `${worker.metricsSeconds.toFixed(2)} s${samplesText(worker.metricsSamples)}`,
        met: worker.metricsSeconds < 1,
      },
    );
  }
  return checks;
}

/** ` (median of 0.81, 0.93, 1.20)`; nothing for results measured once (before 2026-12-04). */
function samplesText(samples: readonly number[] | undefined): string {
  return samples && samples.length > 1
    ? ` (median of ${samples.map((seconds) => seconds.toFixed(2)).join(', ')})`
    : '';
}
