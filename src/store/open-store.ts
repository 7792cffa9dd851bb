import { type KyselyPlugin, sql } from 'kysely';
import { type StoreLocation, storeLocation } from '../../config/store-url.js';
import { streams } from '../../config/streams.js';
import type { Logger } from '../logger.js';
import { redactUrl } from '../secrets/url-credentials.js';
import { pendingChildWork } from './child-queue.js';
import { describeColumns } from './describe-columns.js';
import { approveDeletes, listHeldDeletes } from './held-deletes.js';
import { readHistory } from './history/read-history.js';
import { switchHistory } from './history/switch-history.js';
import { migrateStore } from './migrations/migrate-store.js';
import { createCommandOutbox, retriedOutbox } from './outbox/command-outbox.js';
import { partitionOverview } from './partition-overview.js';
import { PartitionRun } from './partition-run.js';
import { PlanReads } from './plan-reads.js';
import { countRows, liveKeys, readRows } from './read-rows.js';
import { resetStream } from './reset-stream.js';
import { forgetRuns } from './run-retention.js';
import { openSqliteDialect } from './sqlite/sqlite-dialect.js';
import { sqlitePathProblem } from './sqlite/sqlite-path-problem.js';
import type { Store } from './store.js';
import { createStoreContext } from './store-context.js';
import type { StoreDialect } from './store-dialect.js';
import { StoreConnectionError } from './store-errors.js';
import type { StoreRetryOptions } from './store-retry.js';
import { createStreamPresence } from './stream-presence.js';
import { type Catalogue, type StreamTable, streamTables } from './stream-tables.js';
import { lastRuns, lastSuccesses, listRuns, partitionHealth } from './sync-runs.js';
import { everCommitted, listStates } from './sync-state.js';

export interface OpenStoreOptions {
  /** Run pending migrations on open. @default true */
  readonly migrate?: boolean;
  /** SQLite: how long a write waits for another process's lock. @default 5000 */
  readonly busyTimeoutMs?: number;
  /**
   * PostgreSQL: connections the store needs at once. The stores of one database in a process share
   * one pool, of the largest number asked (postgres/shared-pools.ts). @default 10
   */
  readonly poolSize?: number;
  /** The stream catalogue the tables come from. @default config/streams.ts */
  readonly catalogue?: Catalogue;
  /** The records' sequence field (TMS_SEQUENCE_FIELD): it fills `sequence`, so it gets no typed column. @default 'sequence' */
  readonly sequenceField?: string;
  readonly logger?: Logger;
  /**
   * The streams with history mode (docs/history.md): `migrate` switches it on for these and off
   * for the others. Undefined leaves every stream as the store has it (commands that only read).
   * @default undefined
   */
  readonly history?: readonly string[];
  /** Called once the store answered, before the migrations: work to overlap with them (the engine's login). @default none */
  readonly onReachable?: () => void;
  /** Kysely plugins on every query the store builds (a test counts the rows they return). @default none */
  readonly plugins?: readonly KyselyPlugin[];
  /**
   * The streams whose tables (and views) the migrations make: the selected ones. A table made
   * before stays and is kept current; another stream's is made when its first run opens.
   * @default every stream of the catalogue
   */
  readonly streams?: readonly string[];
  /**
   * PostgreSQL: the schema that holds everything of this store, bookkeeping included (made when
   * missing), so several mirrors share one database; `?schema=` in the URL says the same.
   * @default the database's default (`public`)
   */
  readonly schema?: string;
  /**
   * Days `sync_runs` keeps a run (run-retention.ts): older ones are forgotten as runs end, each
   * partition's latest run and latest success kept. 0 keeps every run; the commands pass
   * `sync.keepRunsDays`. @default 0
   */
  readonly keepRunsDays?: number;
}

/**
 * Opens the store named by a STORE_URL value (`sqlite:PATH` or `postgres://...`) and, unless
 * told otherwise, migrates it to the catalogue. Errors name STORE_URL and never show a password.
 */
export async function openStore(url: string | undefined, options: OpenStoreOptions = {}): Promise<Store> {
  const location = storeLocation(url, options.schema);
  const tables = streamTables(options.catalogue ?? streams, options.sequenceField);
  const dialect = await openDialect(location, options);
  const { store, loadColumns } = createStore(dialect, tables, {
    logger: options.logger,
    history: options.history,
    streams: options.streams,
    keepRunsDays: options.keepRunsDays,
  });
  try {
    await store.ping();
  } catch (error) {
    await store.close();
    const where = location.kind === 'sqlite' ? `sqlite:${location.path}` : redactUrl(location.url);
    throw new StoreConnectionError(
      `cannot reach the store at STORE_URL=${where}: ${(error as Error).message}`,
      error,
    );
  }
  options.onReachable?.();
  if (options.migrate ?? true) {
    await store.migrate().catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
  } else {
    // A store not migrated yet has no columns to read; a write that finds them moved reads them again.
    await loadColumns().catch(() => undefined);
  }
  return store;
}

async function openDialect(location: StoreLocation, options: OpenStoreOptions): Promise<StoreDialect> {
  if (location.kind === 'postgres') {
    // Loaded only for PostgreSQL: a SQLite store's start-up never pays for the pg driver.
    const { openPostgresDialect } = await import('./postgres/postgres-dialect.js');
    return openPostgresDialect({
      url: location.url,
      poolSize: options.poolSize ?? 10,
      logger: options.logger,
      schema: location.schema,
      plugins: options.plugins,
    });
  }
  const problem = sqlitePathProblem(location.path);
  if (problem) {
    throw new StoreConnectionError(
      `cannot open the store at STORE_URL=sqlite:${location.path}: it ${problem}`,
      undefined,
    );
  }
  try {
    return openSqliteDialect({
      path: location.path,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      plugins: options.plugins,
    });
  } catch (error) {
    throw new StoreConnectionError(
      `cannot open the store at STORE_URL=sqlite:${location.path}: ${(error as Error).message}`,
      error,
    );
  }
}

/**
 * Binds the store to one dialect; nothing here knows which database it is. Every call that is one
 * transaction or one read runs under the store's retry (store-retry.ts): a dropped connection or
 * a busy database costs a repeat, not the run. `loadColumns` reads the typed columns again.
 */
function createStore(
  dialect: StoreDialect,
  tables: ReadonlyMap<string, StreamTable>,
  options: StoreRetryOptions & Pick<OpenStoreOptions, 'history' | 'streams' | 'keepRunsDays'> = {},
): { store: Store; loadColumns: () => Promise<void> } {
  const { history: _history, streams: selected, keepRunsDays, ...retry } = options;
  const presence = createStreamPresence(selected);
  const context = createStoreContext(dialect, tables, presence, retry, keepRunsDays);
  const { db, types } = dialect;
  const retried =
    <A extends unknown[], R>(verb: string, run: (...args: A) => Promise<R>) =>
    (...args: A) =>
      context.retry(verb, () => run(...args));
  const loadColumns = retried('loadColumns', () => context.schemas.load());
  const store: Store = {
    dialect: dialect.name,
    migrate: retried('migrate', async () => {
      const { present, ...summary } = await migrateStore(dialect, [...tables.values()], presence.selected);
      presence.update(present);
      await context.schemas.load();
      if (options.history === undefined) return summary;
      const current = present.map((stream) => context.schemas.table(stream));
      const history = await switchHistory(db, dialect, current, new Set(options.history));
      if (history.enabled.length + history.disabled.length > 0) await context.schemas.load();
      return { ...summary, history };
    }),
    // Retried like every call: a connection dropped at start-up is a blip, not a dead store.
    ping: retried('ping', async () => {
      await sql`select 1`.execute(db);
    }),
    openRun: async (input) => {
      await presence.ensure(input.stream, () => store.migrate());
      return PartitionRun.open(context, context.table(input.stream), input);
    },
    planReads: (planned) => new PlanReads(context, planned),
    listStates: retried('listStates', () => listStates(db, types)),
    everCommitted: committedOnceSeen(
      retried('everCommitted', (stream, partition) => everCommitted(db, stream, partition)),
    ),
    listRuns: retried('listRuns', (filter) => listRuns(db, filter)),
    lastRuns: retried('lastRuns', () => lastRuns(db)),
    lastSuccesses: retried('lastSuccesses', () => lastSuccesses(db)),
    partitionHealth: retried('partitionHealth', () => partitionHealth(db)),
    partitionOverview: retried('partitionOverview', () => partitionOverview(db)),
    pendingChildWork: retried('pendingChildWork', () => pendingChildWork(db)),
    heldDeletes: retried('heldDeletes', (stream) => listHeldDeletes(db, stream)),
    describeColumns: retried('describeColumns', (stream) => describeColumns(context, stream)),
    readRows: retried('readRows', (stream, filter) => readRows(context, stream, filter)),
    countRows: retried('countRows', (stream, filter) => countRows(context, stream, filter)),
    liveKeys: retried('liveKeys', (stream, ids) => liveKeys(context, stream, ids)),
    history: retried('history', (stream, key) => readHistory(context, stream, key)),
    resetState: retried('resetState', (stream, options = {}) =>
      resetStream(context, { ...options, stream, now: new Date() }),
    ),
    approveDeletes: retried('approveDeletes', (input) => approveDeletes(context, input)),
    commands: retriedOutbox(createCommandOutbox(dialect), context.retry),
    forgetRuns: retried('forgetRuns', (before, limit) => forgetRuns(db, before, limit)),
    close: async () => {
      await context.runRetention.settled();
      await db.destroy();
    },
  };
  return { store, loadColumns };
}

/**
 * `Store.everCommitted`, asked of the store only until it answers true: a state once committed
 * stays committed (no verb deletes a `sync_state` row; a reset moves its version on), so a run
 * of a stream that reads another's rows (the goods of the tasks) asks once per process, not at
 * every run.
 */
function committedOnceSeen(
  read: (stream: string, partition?: string) => Promise<boolean>,
): (stream: string, partition?: string) => Promise<boolean> {
  const committed = new Set<string>();
  return async (stream, partition) => {
    const key = partition === undefined ? stream : `${stream}/${partition}`;
    if (committed.has(key)) return true;
    const found = await read(stream, partition);
    if (found) committed.add(key);
    return found;
  };
}
