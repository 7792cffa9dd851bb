import type { ConnectionFleetRow } from './connection-fleet.js';
import type { LagSummary } from './connection-lag.js';
import type { TargetCheck } from './targets.js';

// A window shorter than the interval sees each partition run once: no lag to measure, and no
// partition can be over its bound. That is said, and is no target met.
const lagText = (lag: LagSummary) =>
  lag.timedPartitions === 0
    ? `lag not measured: no partition ran twice in the window (make it longer than the interval); ${lag.runs} runs, ${lag.failedRuns} failed`
    : `longest lag ${lag.longestLagSeconds.toFixed(1)} s (bound ${lag.longestLagLimitSeconds.toFixed(1)} s, ${lag.longestLagPartition}); ${lag.partitionsOverLimit} of ${lag.partitions} partitions over their bound, by at most ${lag.worstExcessSeconds.toFixed(1)} s (${lag.timedPartitions} partitions ran twice or more); ${lag.runs} runs, ${lag.failedRuns} failed`;

export function formatConnections(rows: readonly ConnectionFleetRow[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    const { steady } = row;
    lines.push(
      `${row.connections} connections, ${row.partitions} partitions, ${row.workers} workers, every ${row.intervalSeconds} s:`,
      `  started in ${row.startSeconds.toFixed(1)} s; every backfill done in ${row.backfillSeconds.toFixed(0)} s; ${row.storesDiffering} stores differ from their account${row.firstDifference ? ` (${row.firstDifference})` : ''}`,
      `  cycles for ${steady.seconds} s: ${steady.requests} requests, ${steady.cpuPerRequestMs.toFixed(2)} ms of worker CPU per request; largest worker ${row.workerRssMb.toFixed(0)} MB peak RSS${row.workerRssSteadyMb ? `, ${row.workerRssSteadyMb.toFixed(0)} MB at the end of the cycles` : ''}; Redis ${((row.redisMemoryMb * 1000) / row.partitions).toFixed(2)} MB per 1,000 partitions`,
      `  ${lagText(steady.lag)}`,
    );
    const beside = row.beside;
    if (beside)
      lines.push(
        `  a connection of ${beside.invoices} invoices added through the CLI: its first run ${beside.addedStartSeconds.toFixed(1)} s later; ${beside.mirroredInvoices} invoices mirrored by the end`,
        `  the others meanwhile: ${lagText(beside.lag)}`,
        `  runs over their bound by the minute they started in: ${(beside.lag.overByMinute ?? []).join(', ')}`,
        `  over their bound, by the process running them: ${(beside.overByProcess ?? []).map((share) => `pid ${share.pid}${share.big ? ' (runs big)' : ''}, ${share.connections} connections: ${share.over} over`).join('; ')}`,
        `  runs started more than 10 s after: connections pause ${beside.runsAfterPause}, connections remove ${beside.runsAfterRemove}`,
      );
  }
  return lines.join('\n');
}

/** The many-accounts targets (BENCHMARKS.md, Targets) that these rows answer. */
export function checkConnectionTargets(rows: readonly ConnectionFleetRow[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const lagMet = (lag: LagSummary) =>
    lag.timedPartitions > 0 && lag.partitionsOverLimit === 0 && lag.failedRuns === 0;
  const lagMeasured = (lag: LagSummary) =>
    lag.timedPartitions === 0
      ? 'not measured: no partition ran twice in the window'
      : `${lag.partitionsOverLimit} over, by at most ${lag.worstExcessSeconds.toFixed(1)} s`;
  for (const row of rows) {
    checks.push(
      {
        target: `${row.connections} connections: every backfill done, every store equal to its account`,
        measured: `${row.backfillSeconds.toFixed(0)} s, ${row.storesDiffering} differing`,
        met: row.storesDiffering === 0,
      },
      {
        target: `${row.connections} connections: no partition's lag over one interval plus its run time`,
        measured: lagMeasured(row.steady.lag),
        met: lagMet(row.steady.lag),
      },
    );
    const beside = row.beside;
    if (beside)
      checks.push(
        {
          target: 'a 200,000-invoice backfill beside: no other partition over its bound',
          measured: lagMeasured(beside.lag),
          met: lagMet(beside.lag),
        },
        {
          target: 'a connection added through the CLI starts its backfill within 10 s',
          measured: `${beside.addedStartSeconds.toFixed(1)} s`,
          met: beside.addedStartSeconds <= 10,
        },
        {
          target: 'a paused or removed connection has no run starting 10 s later',
          measured: `${beside.runsAfterPause} after pause, ${beside.runsAfterRemove} after remove`,
          met: beside.runsAfterPause === 0 && beside.runsAfterRemove === 0,
        },
      );
  }
  const [small, large] = [rows[0], rows.at(-1)];
  if (small && large && large !== small) {
    const cpu = large.steady.cpuPerRequestMs / small.steady.cpuPerRequestMs;
    const rss =
      (large.workerRssSteadyMb ?? large.workerRssMb) / (small.workerRssSteadyMb ?? small.workerRssMb);
    checks.push(
      {
        target: `worker CPU per request at ${large.connections} connections within 1.25x of ${small.connections}`,
        measured: `${cpu.toFixed(2)}x`,
        met: cpu <= 1.25,
      },
      {
        target: `worker RSS (after the cycles) at ${large.connections} connections within 1.25x of ${small.connections}`,
        measured: `${rss.toFixed(2)}x`,
        met: rss <= 1.25,
      },
    );
  }
  return checks;
}
