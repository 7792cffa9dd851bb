import { sql } from 'kysely';
import { streams } from '../../config/streams.js';
import type { Logger } from '../logger.js';
import {
  ackParents,
  advanceRefreshAll,
  enqueueAllParents,
  leaveParents,
  pendingChildWork,
  pendingParents,
  refreshAllPending,
} from './child-queue.js';
import { describeColumns } from './columns/describe-columns.js';
import { StoreConnectionError } from './errors.js';
import { approveDeletes, listHeldDeletes } from './held-deletes.js';
import { markDeleted, markDeletedByScope } from './mark-deleted.js';
import { markMissing } from './mark-missing.js';
import { migrateStore } from './migrations/migrate-store.js';
import { openPartitionRun } from './partition-run.js';
import { openPostgresDialect } from './postgres/postgres-dialect.js';
import { countRows, liveIds, liveKeys, liveRecords, readRows } from './read-rows.js';
import { replaceScopes } from './replace-scopes.js';
import { openSqliteDialect } from './sqlite/sqlite-dialect.js';
import type { Store, StoreVerbs } from './store.js';
import { createStoreContext } from './store-context.js';
import type { StoreDialect } from './store-dialect.js';
import { type StoreRetryOptions, withStoreRetry } from './store-retry.js';
import { parseStoreUrl, redactStoreUrl, type StoreLocation } from './store-url.js';
import { type Catalogue, type StreamTable, streamTables } from './stream-tables.js';
import { finishRun, lastRuns, listRuns, startRun } from './sync-runs.js';
import { listStates, readState, resetState } from './sync-state.js';
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
  const location = parseStoreUrl(url);
  const tables = streamTables(options.catalogue ?? streams, options.sequenceField);
  const dialect = openDialect(location, options);
  const store = createStore(dialect, tables, { logger: options.logger });
  try {
    await store.ping();
  } catch (error) {
    await store.close();
    const where = location.kind === 'sqlite' ? `sqlite:${location.path}` : redactStoreUrl(location.url);
    throw new StoreConnectionError(
      `cannot reach the store at STORE_URL=${where}: ${(error as Error).message}`,
      error,
    );
  }
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

function openDialect(location: StoreLocation, options: OpenStoreOptions): StoreDialect {
  if (location.kind === 'postgres') {
    return openPostgresDialect({
      url: location.url,
      poolSize: options.poolSize ?? 10,
      logger: options.logger,
    });
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

/**
 * Binds the verbs to one dialect; nothing here knows which database it is. Every verb that is one
 * transaction or one read runs under the store's retry (store-retry.ts): a dropped connection or
 * a busy database costs a repeat, not the run.
 */
export function createStore(
  dialect: StoreDialect,
  tables: ReadonlyMap<string, StreamTable>,
  retry: StoreRetryOptions = {},
): StoreVerbs {
  const context = createStoreContext(dialect, tables);
  const { db, types } = dialect;
  const retried =
    <A extends unknown[], R>(verb: string, run: (...args: A) => Promise<R>) =>
    (...args: A) =>
      withStoreRetry(verb, () => run(...args), retry);
  const verbs: Omit<StoreVerbs, 'openRun'> = {
    dialect: dialect.name,
    migrate: retried('migrate', async () => {
      const summary = await migrateStore(dialect, [...tables.values()]);
      await context.schemas.load();
      return summary;
    }),
    // Retried like every verb: a connection dropped at start-up is a blip, not a dead store.
    ping: retried('ping', async () => {
      await sql`select 1`.execute(db);
    }),
    // The page verbs retry their transaction only, not the wait for the page before them.
    writePage: (input) => writePage(context, input, (run) => withStoreRetry('writePage', run, retry)),
    previewPage: (input) => previewPage(context, input, (run) => withStoreRetry('previewPage', run, retry)),
    markDeleted: retried('markDeleted', (input) => markDeleted(context, input)),
    markMissing: retried('markMissing', (input) => markMissing(context, input)),
    markDeletedByScope: retried('markDeletedByScope', (input) => markDeletedByScope(context, input)),
    replaceScopes: retried('replaceScopes', (input) => replaceScopes(context, input)),
    readState: retried('readState', (stream, partition) => readState(db, types, stream, partition)),
    listStates: retried('listStates', () => listStates(db, types)),
    resetState: retried('resetState', (stream) => resetState(db, stream, new Date())),
    startRun: retried('startRun', (input) => startRun(db, input)),
    finishRun: retried('finishRun', (runId, input) => finishRun(db, runId, input)),
    listRuns: retried('listRuns', (filter) => listRuns(db, filter)),
    lastRuns: retried('lastRuns', () => lastRuns(db)),
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
    ackParents: retried('ackParents', (child, parentIds) => ackParents(context, child, parentIds)),
    leaveParents: retried('leaveParents', (child, parents) => leaveParents(context, child, parents)),
    countRows: retried('countRows', (stream, filter) => countRows(context, stream, filter)),
    liveKeys: retried('liveKeys', (stream, ids) => liveKeys(context, stream, ids)),
    readRows: retried('readRows', (stream, filter) => readRows(context, stream, filter)),
    liveIds: (stream, options) => liveIds(context, stream, options),
    liveRecords: (stream, options) => liveRecords(context, stream, options),
    close: () => db.destroy(),
  };
  const store: StoreVerbs = {
    ...verbs,
    openRun: (input) => openPartitionRun(store, context.table(input.stream), input),
  };
  return store;
}
