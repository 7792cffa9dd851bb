import type { Redis } from 'ioredis';
import type { Settings } from '../../config/settings.js';
import { type Readiness, readReadiness } from '../../jobs/readiness.js';
import type { TmsClient } from '../client/index.js';
import type { StopSignal } from '../linked-signals.js';
import type { Store } from '../store/store.js';
import { configurationMistake } from '../sync/check-access.js';
import { partitionLabel } from '../sync/stream-order.js';
import { describeError } from '../tms-sync-error.js';
import type { PartitionHealth } from './partition-gauges.js';

export interface WorkerReadinessSources {
  readonly settings: Pick<Settings, 'baseUrl' | 'loginPath'>;
  readonly redis: Pick<Redis, 'ping'>;
  readonly store: Pick<Store, 'ping'>;
  readonly client: Pick<TmsClient, 'checkLogin' | 'health'>;
  /** The configured partitions with their latest run (as `status` and the lag gauges read them). */
  readonly partitions: () => Promise<
    ReadonlyArray<PartitionHealth & { readonly lastRun: { readonly error?: string | null } | null }>
  >;
}

/**
 * The worker's readiness: Redis and the store answer; the TMS took the API token (until a login
 * succeeded, the one first login, answered again for 5 s without a request) and its breaker is not
 * open; and not every partition's latest finished run failed.
 */
export function workerReadiness(
  sources: WorkerReadinessSources,
  timeoutMs?: number,
): () => Promise<Readiness> {
  return () =>
    readReadiness(
      {
        redis: async () => void (await sources.redis.ping()),
        store: async () => void (await sources.store.ping()),
        tms: (signal) => tmsProblem(sources, signal),
        runs: async () => runsProblem(await sources.partitions()),
      },
      timeoutMs,
    );
}

async function tmsProblem(sources: WorkerReadinessSources, signal: StopSignal): Promise<string | undefined> {
  const health = sources.client.health();
  if (health.state === 'open')
    return `no request to ${sources.settings.baseUrl} has succeeded for TMS_PATIENCE_SECONDS (last: ${health.lastFailure ?? 'unknown'}); requests stop until it answers again`;
  try {
    await sources.client.checkLogin(signal);
    return undefined;
  } catch (error) {
    return describeError(configurationMistake(error, sources.settings) ?? error);
  }
}

/** Why the runs say the worker cannot sync: every configured partition's latest finished run failed. */
export function runsProblem(
  partitions: ReadonlyArray<
    PartitionHealth & { readonly lastRun: { readonly error?: string | null } | null }
  >,
): string | undefined {
  const finished = partitions.filter(
    (item) => item.lastRun?.result === 'succeeded' || item.lastRun?.result === 'failed',
  );
  if (finished.length === 0 || finished.some((item) => item.lastRun!.result !== 'failed')) return undefined;
  const first = finished[0]!;
  return `the latest run of every partition failed (${finished.length}; ${partitionLabel(first)}: ${first.lastRun!.error ?? 'no error recorded'})`;
}

/** `readiness` read at most once per `ms`: the answer of the last read serves the calls within it, one read at a time. */
export function readinessAtMostEvery(
  readiness: () => Promise<Readiness>,
  ms: number,
): () => Promise<Readiness> {
  let last: { readonly at: number; readonly answer: Promise<Readiness> } | undefined;
  return () => {
    if (last === undefined || performance.now() - last.at >= ms) {
      const answer = readiness();
      const read = { at: performance.now(), answer };
      last = read;
      // A failed read is not kept: the next call reads again.
      answer.catch(() => {
        if (last === read) last = undefined;
      });
    }
    return last.answer;
  };
}
