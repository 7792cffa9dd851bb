import { settingOf } from '../../config/connections/setting-name.js';
import type { Settings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import { type StreamName, streams } from '../../config/streams.js';
import { createTmsClient, type TmsClient, type TmsClientOptions } from '../client/index.js';
import type { Logger } from '../logger.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { checkAccess } from './check-access.js';
import type { EngineContext } from './engine-context.js';
import type { PartitionSummary, RunOptions } from './run-options.js';
import { runPartition, skippedPartition } from './run-partition.js';
import { runPlan } from './run-plan.js';
import { type StreamPartition, selectPartitions } from './select-partitions.js';
import { storeOptionsOf } from './store-options.js';
import { inRunOrder, isStreamName } from './stream-order.js';
import { partitionsOf } from './stream-partitions.js';
import { UnknownStreamError } from './sync-errors.js';

export interface SyncEngineOptions {
  readonly settings: Settings;
  readonly logger: Logger;
  /** An open store to use instead of opening `settings.storeUrl`. @default opened from settings */
  readonly store?: Store;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /** PostgreSQL: connections the store needs at once (open-store.ts). @default open-store.ts's (10) */
  readonly poolSize?: number;
  /** Overrides of the client options built from settings (timeouts, retry), e.g. short ones in tests. @default {} */
  readonly clientOptions?: Partial<TmsClientOptions>;
}

/** The one engine that `sync`, `demo` and the worker's jobs run. */
export interface SyncEngine {
  readonly context: EngineContext;
  /** The partitions of a stream (stream-partitions.ts). */
  partitionsOf(stream: StreamName): string[];
  /** Runs one partition of one stream once (the worker's job, `sync` per partition). */
  runPartition(stream: StreamName, partition: string, options?: RunOptions): Promise<PartitionSummary>;
  /**
   * Runs the named streams and partitions once (select-partitions.ts: none named, the configured
   * streams, less those lacking configuration): `sync.partitionConcurrency` partitions at once,
   * each after the streams it reads from (run-plan.ts); a partition that fails does not stop the
   * others, but the partitions reading its rows are skipped. Logs in first: a wrong URL or token
   * throws one SettingsError before anything runs (check-access.ts).
   */
  run(targets: readonly string[], options?: RunOptions): Promise<PartitionSummary[]>;
  close(): Promise<void>;
}

/** Opens the client and the store from settings; fails with a SettingsError naming what is missing. */
export async function createSyncEngine(options: SyncEngineOptions): Promise<SyncEngine> {
  const { settings, logger } = options;
  const client = clientFromSettings(settings, logger, options.clientOptions);
  // The first login (check-access.ts) goes out once the store answered, while it migrates and the
  // run starts, so the first request does not wait for it; a store that cannot be reached fails
  // before any TMS request. Its outcome is the run's check: `run` awaits the same login, and a
  // refusal is answered again without a request (auth-session.ts `check`).
  const logIn = () => void client.checkLogin().catch(() => undefined);
  let store: Store;
  try {
    if (options.store) logIn();
    store =
      options.store ??
      (await openStore(settings.storeUrl, {
        ...storeOptionsOf(settings),
        logger,
        history: settings.streams.history,
        onReachable: logIn,
        ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
      }));
  } catch (error) {
    await client.close();
    throw error;
  }
  const context: EngineContext = { client, store, settings, logger, now: options.now ?? (() => new Date()) };
  return {
    context,
    partitionsOf: (stream) => partitionsOf(stream, settings),
    runPartition: (stream, partition, runOptions) => runPartition(context, stream, partition, runOptions),
    async run(targets, runOptions = {}) {
      const { partitions } = selectPartitions(targets, settings);
      await checkAccess(client, settings, logger, runOptions.signal);
      const planReads = store.planReads(partitionsByStream(partitions));
      const done = (summary: PartitionSummary) => {
        planReads.ended(summary.stream);
        runOptions.onPartitionDone?.(summary);
        return summary;
      };
      const runOne = async (stream: StreamName, partition: string) =>
        done(await runPartition(context, stream, partition, runOptions, planReads));
      return runPlan(partitions, runOne, {
        concurrency: settings.sync.partitionConcurrency,
        signal: runOptions.signal,
        skip: (stream, partition, reason) =>
          done(skippedPartition({ stream, partition }, runOptions, reason)),
      });
    },
    async close() {
      await client.close();
      if (!options.store) await store.close();
    },
  };
}

/** The plan's partitions of each stream, for its reads (plan-reads.ts). */
function partitionsByStream(units: readonly StreamPartition[]): Map<string, string[]> {
  const planned = new Map<string, string[]>();
  for (const { stream, partition } of units) {
    const partitions = planned.get(stream);
    if (partitions) partitions.push(partition);
    else planned.set(stream, [partition]);
  }
  return planned;
}

/** Stream names checked against the catalogue (all of them when none are named), in run order. */
export function resolveStreams(names: readonly string[]): StreamName[] {
  const unknown = names.filter((name) => !isStreamName(name));
  if (unknown.length > 0) {
    throw new UnknownStreamError(unknown, Object.keys(streams));
  }
  return inRunOrder(names.length > 0 ? names : Object.keys(streams));
}

/** The TMS client of these settings (the engine's, `check`'s); SettingsError when the URL or token is missing. */
export function clientFromSettings(
  settings: Settings,
  logger: Logger,
  overrides: Partial<TmsClientOptions> = {},
): TmsClient {
  if (!settings.baseUrl)
    throw new SettingsError(settingOf(settings.connection, 'TMS_BASE_URL'), 'required: the TMS base URL');
  if (!settings.apiToken)
    throw new SettingsError(
      settingOf(settings.connection, 'TMS_API_TOKEN'),
      'required: the API token for the login operation',
    );
  return createTmsClient({
    baseUrl: settings.baseUrl,
    apiToken: settings.apiToken,
    loginPath: settings.loginPath,
    driverToken: settings.driverToken,
    connections: settings.tms.maxConcurrency,
    requestsPerSecond: settings.tms.maxRequestsPerSecond,
    patienceMs: settings.tms.patienceSeconds * 1000,
    patienceSetting: 'TMS_PATIENCE_SECONDS',
    ceilingSetting: 'TMS_REQUEST_CEILING_SECONDS',
    timeoutSetting: 'TMS_REQUEST_TIMEOUT_SECONDS',
    logger,
    ...overrides,
    retry: { maxTotalMs: settings.tms.requestCeilingSeconds * 1000, ...overrides.retry },
    timeouts: { totalMs: settings.tms.requestTimeoutSeconds * 1000, ...overrides.timeouts },
  });
}
