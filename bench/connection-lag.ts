// The lag of every partition of many connections, from their stores' `sync_runs` (one PostgreSQL
// database, a schema per connection): how stale a partition's rows got between two runs, against
// the bound, one schedule interval plus the partition's own run time.
import type pg from 'pg';

/** One run of one partition of one connection. */
export interface PartitionRunSpan {
  readonly partition: string;
  readonly startedMs: number;
  readonly finishedMs: number;
  readonly result: string;
}

/** The worst lag of the runs read, and how many partitions went over their bound. */
export interface LagSummary {
  readonly partitions: number;
  /** Partitions that ran at least twice in the window: only theirs is a lag measured. */
  readonly timedPartitions: number;
  readonly runs: number;
  readonly failedRuns: number;
  /**
   * The longest a partition's rows went without a refresh: from a run's start (what it read is as
   * of then) to the next run's end (when the newer rows are in).
   */
  readonly longestLagSeconds: number;
  /** The bound of that lag: the interval plus the later run's own run time. */
  readonly longestLagLimitSeconds: number;
  readonly longestLagPartition: string;
  /** Partitions whose lag ever went over their bound. */
  readonly partitionsOverLimit: number;
  /** The most any of them went over it. */
  readonly worstExcessSeconds: number;
  /** The longest gap between two consecutive runs' starts, beyond the interval. */
  readonly latestStartSeconds: number;
  /** Partitions over their bound, by connection (the part of `partition` before its first `/`). */
  readonly overByConnection: Readonly<Record<string, number>>;
  /** Runs that started past their bound, by the minute they started in (from the window's first run). */
  readonly overByMinute: readonly number[];
}

/** Every run that started from `sinceMs` in the given schemas (connection name -> schema), one query. */
export async function readRunSpans(
  db: pg.Client,
  schemas: ReadonlyMap<string, string>,
  sinceMs: number,
): Promise<PartitionRunSpan[]> {
  const since = new Date(sinceMs).toISOString();
  const parts = [...schemas].map(
    ([connection, schema]) =>
      `select '${connection}' as connection, stream, partition, started_at, finished_at, result
       from "${schema}".sync_runs where started_at >= '${since}' and result <> 'running'`,
  );
  if (parts.length === 0) return [];
  const { rows } = await db.query<{
    connection: string;
    stream: string;
    partition: string;
    started_at: Date;
    finished_at: Date;
    result: string;
  }>(parts.join(' union all '));
  return rows.map((row) => ({
    partition: `${row.connection}/${row.stream}/${row.partition}`,
    startedMs: row.started_at.getTime(),
    finishedMs: row.finished_at.getTime(),
    result: row.result,
  }));
}

/** The lag of every partition over consecutive runs (read-runs order does not matter). */
export function summarizeLag(spans: readonly PartitionRunSpan[], intervalSeconds: number): LagSummary {
  const byPartition = new Map<string, PartitionRunSpan[]>();
  for (const span of spans) {
    const list = byPartition.get(span.partition) ?? [];
    list.push(span);
    byPartition.set(span.partition, list);
  }
  let longest = { lag: 0, limit: 0, partition: '' };
  let over = 0;
  let worstExcess = 0;
  let latestStart = 0;
  const overByConnection: Record<string, number> = {};
  const overByMinute: number[] = [];
  const origin = Math.min(...spans.map((span) => span.startedMs));
  for (const [partition, runs] of byPartition) {
    runs.sort((a, b) => a.startedMs - b.startedMs);
    let excess = 0;
    for (let i = 1; i < runs.length; i++) {
      const earlier = runs[i - 1]!;
      const later = runs[i]!;
      const lag = (later.finishedMs - earlier.startedMs) / 1000;
      const limit = intervalSeconds + (later.finishedMs - later.startedMs) / 1000;
      if (lag > longest.lag) longest = { lag, limit, partition };
      excess = Math.max(excess, lag - limit);
      if (lag > limit) {
        const minute = Math.floor((later.startedMs - origin) / 60_000);
        overByMinute[minute] = (overByMinute[minute] ?? 0) + 1;
      }
      latestStart = Math.max(latestStart, (later.startedMs - earlier.startedMs) / 1000 - intervalSeconds);
    }
    if (excess > 0) {
      over += 1;
      const connection = partition.slice(0, partition.indexOf('/'));
      overByConnection[connection] = (overByConnection[connection] ?? 0) + 1;
    }
    worstExcess = Math.max(worstExcess, excess);
  }
  return {
    partitions: byPartition.size,
    timedPartitions: [...byPartition.values()].filter((runs) => runs.length >= 2).length,
    runs: spans.length,
    failedRuns: spans.filter((span) => span.result === 'failed').length,
    longestLagSeconds: longest.lag,
    longestLagLimitSeconds: longest.limit,
    longestLagPartition: longest.partition,
    partitionsOverLimit: over,
    worstExcessSeconds: worstExcess,
    latestStartSeconds: latestStart,
    overByConnection,
    overByMinute: Array.from(overByMinute, (count) => count ?? 0),
  };
}
