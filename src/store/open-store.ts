import { type KyselyPlugin, sql } from 'kysely';
import { streams } from '../../config/streams.js';
import type { Logger } from '../logger.js';
import { redactUrl } from '../secrets/url-credentials.js';
import {
  ackParents,
  advanceRefreshAll,
  enqueueAllParents,
  leaveParents,
  pendingChildWork,
  pendingParents,
  refreshAllPending,
  takeParents,
} from './child-queue.js';
import { describeColumns } from './columns/describe-columns.js';
import { createCommandOutbox, retriedOutbox } from './commands/command-outbox.js';
import { StoreConnectionError } from './errors.js';
import { approveDeletes, listHeldDeletes } from './held-deletes.js';
import { readHistory } from './history/read-history.js';
import { switchHistory } from './history/switch-history.js';
import { markDeleted, markDeletedByScope } from './mark-deleted.js';
import { markMissing } from './mark-missing.js';
import { migrateStore } from './migrations/migrate-store.js';
import { openPartitionRun } from './partition-run.js';
import { countRows, liveIds, liveKeys, readRows, referencedIds } from './read-rows.js';
import { replaceScopes } from './replace-scopes.js';
import { resetStream } from './reset-stream.js';
import { openSqliteDialect } from './sqlite/sqlite-dialect.js';
import { sqlitePathProblem } from './sqlite/sqlite-path-problem.js';
import type { Store, StoreVerbs, WritePageInput } from './store.js';
import { createStoreContext } from './store-context.js';
import type { StoreDialect } from './store-dialect.js';
import { type StoreRetryOptions, withStoreRetry } from './store-retry.js';
import { type StoreLocation, storeLocation } from './store-url.js';
import { createStreamPresence } from './stream-presence.js';
import { type Catalogue, type StreamTable, streamTables } from './stream-tables.js';
import { finishRun, lastRuns, lastSuccesses, listRuns, startRun } from './sync-runs.js';
import { everCommitted, listStates, readState } from './sync-state.js';
import { previewPage, writePage } from './write-page.js';

export interface OpenStoreOptions {
  /** Run pending migrations on open. @default true */
  readonly migrate?: boolean;
  /** SQLite: how long a write waits for another process's lock. @default 5000 */
  readonly busyTimeoutMs?: number;
  /** PostgreSQL: connections in the pool. @default 10 */
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
}

/**
 * Opens the store named by a STORE_URL value (`sqlite:PATH` or `postgres://...`) and, unless
 * told otherwise, migrates it to the catalogue. Errors name STORE_URL and never show a password.
 */
export async function openStore(url: string | undefined, options: OpenStoreOptions = {}): Promise<Store> {
  return openStoreVerbs(url, options);
}

/** `openStore` with the SQL verbs under the store (for the store's own tests and tools). */
export async function openStoreVerbs(
  url: string | undefined,
  options: OpenStoreOptions = {},
): Promise<StoreVerbs> {
  const location = storeLocation(url, options.schema);
  const tables = streamTables(options.catalogue ?? streams, options.sequenceField);
  const dialect = withPlugins(await openDialect(location, options), options.plugins ?? []);
  const store = createStore(dialect, tables, {
    logger: options.logger,
    history: options.history,
    streams: options.streams,
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
    await store.loadColumns().catch(() => undefined);
  }
  return store;
}

function withPlugins(dialect: StoreDialect, plugins: readonly KyselyPlugin[]): StoreDialect {
  let db = dialect.db;
  for (const plugin of plugins) db = db.withPlugin(plugin);
  return { ...dialect, db };
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
    return openSqliteDialect({ path: location.path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
  } catch (error) {
    throw new StoreConnectionError(
      `cannot open the store at STORE_URL=sqlite:${location.path}: ${(error as Error).message}`,
      error,
    );
  }
}

/** A page named by its stream and the keys it holds, for a refusal's message. */
function pageSubject(input: WritePageInput): string {
  const ids = input.records.map((record) => record.key);
  const scope = input.scope === undefined ? '' : ` (scope ${input.scope})`;
  const keys = ids.length <= 2 ? ids.join(', ') : `${ids[0]} ... ${ids.at(-1)}`;
  return `the page of ${input.stream}${scope} with ${ids.length} records (keys ${keys || 'none'})`;
}

/**
 * Binds the verbs to one dialect; nothing here knows which database it is. Every verb that is one
 * transaction or one read runs under the store's retry (store-retry.ts): a dropped connection or
 * a busy database costs a repeat, not the run.
 */
export function createStore(
  dialect: StoreDialect,
  tables: ReadonlyMap<string, StreamTable>,
  options: StoreRetryOptions & Pick<OpenStoreOptions, 'history' | 'streams'> = {},
): StoreVerbs {
  const { history: _history, streams: selected, ...retry } = options;
  const presence = createStreamPresence(selected);
  const context = createStoreContext(dialect, tables, presence);
  const { db, types } = dialect;
  const retried =
    <A extends unknown[], R>(verb: string, run: (...args: A) => Promise<R>) =>
    (...args: A) =>
      withStoreRetry(verb, () => run(...args), retry);
  const verbs: Omit<StoreVerbs, 'openRun'> = {
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
    // Retried like every verb: a connection dropped at start-up is a blip, not a dead store.
    ping: retried('ping', async () => {
      await sql`select 1`.execute(db);
    }),
    // The page verbs retry their transaction only, not the wait for the page before them.
    writePage: (input) =>
      writePage(context, input, (run) => withStoreRetry('writePage', run, retry, pageSubject(input))),
    previewPage: (input) =>
      previewPage(context, input, (run) => withStoreRetry('previewPage', run, retry, pageSubject(input))),
    markDeleted: retried('markDeleted', (input) => markDeleted(context, input)),
    markMissing: retried('markMissing', (input) => markMissing(context, input)),
    markDeletedByScope: retried('markDeletedByScope', (input) => markDeletedByScope(context, input)),
    replaceScopes: retried('replaceScopes', (input) => replaceScopes(context, input)),
    readState: retried('readState', (stream, partition) => readState(db, types, stream, partition)),
    listStates: retried('listStates', () => listStates(db, types)),
    everCommitted: retried('everCommitted', (stream, partition) => everCommitted(db, stream, partition)),
    resetState: retried('resetState', (stream, options = {}) =>
      resetStream(context, { ...options, stream, now: new Date() }),
    ),
    startRun: retried('startRun', (input) => startRun(db, input)),
    finishRun: retried('finishRun', (runId, input) => finishRun(db, runId, input)),
    listRuns: retried('listRuns', (filter) => listRuns(db, filter)),
    lastRuns: retried('lastRuns', () => lastRuns(db)),
    lastSuccesses: retried('lastSuccesses', () => lastSuccesses(db)),
    loadColumns: retried('loadColumns', () => context.schemas.load()),
    describeColumns: retried('describeColumns', (stream) => describeColumns(context, stream)),
    heldDeletes: retried('heldDeletes', (stream) => listHeldDeletes(db, stream)),
    approveDeletes: retried('approveDeletes', (input) => approveDeletes(context, input)),
    enqueueAllParents: retried('enqueueAllParents', (child, parent) =>
      enqueueAllParents(context, child, parent),
    ),
    pendingChildWork: retried('pendingChildWork', () => pendingChildWork(context)),
    refreshAllPending: retried('refreshAllPending', (child, options) =>
      refreshAllPending(context, child, options),
    ),
    advanceRefreshAll: retried('advanceRefreshAll', (child, afterId) =>
      advanceRefreshAll(context, child, afterId),
    ),
    pendingParents: retried('pendingParents', (child, options) => pendingParents(context, child, options)),
    takeParents: retried('takeParents', (child, parentIds) => takeParents(context, child, parentIds)),
    ackParents: retried('ackParents', (child, parentIds) => ackParents(context, child, parentIds)),
    leaveParents: retried('leaveParents', (child, parents) => leaveParents(context, child, parents)),
    countRows: retried('countRows', (stream, filter) => countRows(context, stream, filter)),
    liveKeys: retried('liveKeys', (stream, ids) => liveKeys(context, stream, ids)),
    readRows: retried('readRows', (stream, filter) => readRows(context, stream, filter)),
    history: retried('history', (stream, key) => readHistory(context, stream, key)),
    liveIds: (stream, options) => liveIds(context, stream, options),
    referencedIds: retried('referencedIds', (stream, options) => referencedIds(context, stream, options)),
    commands: retriedOutbox(createCommandOutbox(dialect), (verb, run) => withStoreRetry(verb, run, retry)),
    close: () => db.destroy(),
  };
  const store: StoreVerbs = {
    ...verbs,
    openRun: async (input) => {
      await presence.ensure(input.stream, () => store.migrate());
      return openPartitionRun(store, context.table(input.stream), input);
    },
  };
  return store;
}
