import { formatDuration } from './durations.js';
import type { StreamStatus } from './stream-status.js';

/** Why a partition fails `status --max-lag`. */
export type ProblemKind = 'failed' | 'stale' | 'never';

export interface PartitionProblem {
  /** `stream` or `stream/partition`. */
  readonly partition: string;
  readonly kind: ProblemKind;
  readonly detail: string;
}

/**
 * The partitions an operator must hear about (`status --max-lag`, docs/worker.md): the latest run
 * failed; or no run succeeded for longer than `maxLagSeconds`; or none ever did (a partition still
 * in its first backfill counts: its data is not there yet). One problem per partition, the first
 * that applies.
 */
export function partitionProblems(
  partitions: readonly StreamStatus[],
  maxLagSeconds: number,
): PartitionProblem[] {
  return partitions.flatMap((item): PartitionProblem[] => {
    const partition = item.partition ? `${item.stream}/${item.partition}` : item.stream;
    const since =
      item.lagSeconds === null ? 'never succeeded' : `last success ${formatDuration(item.lagSeconds)} ago`;
    if (item.lastRun?.result === 'failed')
      return [
        { partition, kind: 'failed', detail: `${since}; ${item.lastRun.error ?? 'no error recorded'}` },
      ];
    if (item.lagSeconds === null)
      return [
        {
          partition,
          kind: 'never',
          detail: item.lastRun ? `never succeeded (latest run ${item.lastRun.result})` : 'never ran',
        },
      ];
    if (item.lagSeconds > maxLagSeconds)
      return [{ partition, kind: 'stale', detail: `${since} (more than ${formatDuration(maxLagSeconds)})` }];
    return [];
  });
}
