import { sql } from 'kysely';
import { streams } from '../../config/streams.js';
import type { Logger } from '../logger.js';
import {
  ackParents,
  advanceRefreshAll,
  enqueueAllParents,
  pendingChildWork,
  pendingParents,
  refreshAllPending,
} from './child-queue.js';
import { StoreConnectionError } from './errors.js';
import { markDeleted, markDeletedByScope } from './mark-deleted.js';
import { markMissing } from './mark-missing.js';
import { migrateStore } from './migrations/migrate-store.js';
import { openPostgresDialect } from './postgres/postgres-dialect.js';
import { countRows, liveIds, liveKeys, liveRecords, readRows } from './read-rows.js';
import { insertRejects } from './rejected-records.js';
import { replaceScopes } from './replace-scopes.js';
import { openSqliteDialect } from './sqlite/sqlite-dialect.js';
import type { Store } from './store.js';
import { createStoreContext, scopeValue } from './store-context.js';
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
  readonly logger?: Logger;
}

/**
 * Opens the store named by a STORE_URL value (`sqlite:PATH` or `postgres://...`) and, unless
 * told otherwise, migrates it to the catalogue. Errors name STORE_URL and never show a password.
 */
export async function openStore(url: string | undefined, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url);
  const tables = streamTables(options.catalogue ?? streams);
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
): Store {
  const context = createStoreContext(dialect, tables);
  const { db, types } = dialect;
  const retried =
    <A extends unknown[], R>(verb: string, run: (...args: A) => Promise<R>) =>
    (...args: A) =>
      withStoreRetry(verb, () => run(...args), retry);
  return {
    dialect: dialect.name,
    migrate: retried('migrate', () => migrateStore(dialect, tables.values())),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
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
    insertRejected: retried('insertRejected', async (input) => {
      const scope = scopeValue(context.table(input.stream), input.scope);
      const now = input.now ?? new Date();
      await insertRejects(db, { runId: input.runId, stream: input.stream, scope, records: [input], now });
    }),
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
    countRows: retried('countRows', (stream, filter) => countRows(context, stream, filter)),
    liveKeys: retried('liveKeys', (stream, ids) => liveKeys(context, stream, ids)),
    readRows: retried('readRows', (stream, filter) => readRows(context, stream, filter)),
    liveIds: (stream, options) => liveIds(context, stream, options),
    liveRecords: (stream, options) => liveRecords(context, stream, options),
    close: () => db.destroy(),
  };
}
