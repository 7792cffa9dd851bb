import { sql } from 'kysely';
import { streams } from '../../config/streams.js';
import type { Logger } from '../logger.js';
import { ackParents, enqueueAllParents, pendingParents } from './child-queue.js';
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
  const store = createStore(dialect, tables);
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

/** Binds the verbs to one dialect; nothing here knows which database it is. */
export function createStore(dialect: StoreDialect, tables: ReadonlyMap<string, StreamTable>): Store {
  const context = createStoreContext(dialect, tables);
  const { db, types } = dialect;
  return {
    dialect: dialect.name,
    migrate: () => migrateStore(dialect, tables.values()),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    writePage: (input) => writePage(context, input),
    previewPage: (input) => previewPage(context, input),
    markDeleted: (input) => markDeleted(context, input),
    markMissing: (input) => markMissing(context, input),
    markDeletedByScope: (input) => markDeletedByScope(context, input),
    replaceScopes: (input) => replaceScopes(context, input),
    readState: (stream, partition) => readState(db, types, stream, partition),
    listStates: () => listStates(db, types),
    resetState: (stream) => resetState(db, stream, new Date()),
    startRun: (input) => startRun(db, input),
    finishRun: (runId, input) => finishRun(db, runId, input),
    listRuns: (filter) => listRuns(db, filter),
    lastRuns: () => lastRuns(db),
    insertRejected: async (input) => {
      const scope = scopeValue(context.table(input.stream), input.scope);
      const now = input.now ?? new Date();
      await insertRejects(db, { runId: input.runId, stream: input.stream, scope, records: [input], now });
    },
    enqueueAllParents: (child, parent) => enqueueAllParents(context, child, parent),
    pendingParents: (child, options) => pendingParents(context, child, options),
    ackParents: (child, parentIds) => ackParents(context, child, parentIds),
    countRows: (stream, filter) => countRows(context, stream, filter),
    liveKeys: (stream, ids) => liveKeys(context, stream, ids),
    readRows: (stream, filter) => readRows(context, stream, filter),
    liveIds: (stream, options) => liveIds(context, stream, options),
    liveRecords: (stream, options) => liveRecords(context, stream, options),
    close: () => db.destroy(),
  };
}
