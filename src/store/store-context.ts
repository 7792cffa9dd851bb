import type { Kysely } from 'kysely';
import type { StoreDatabase, StreamTables } from './database.js';
import { createEndedRuns, type EndedRuns } from './ended-runs.js';
import { createPassReferences, type PassReferences } from './pass-references.js';
import { createRowMapper, type RowMapper } from './row-mapping.js';
import { createRunRetention, forgetRuns, type RunRetention } from './run-retention.js';
import { createSchemaRegistry, type SchemaRegistry } from './schema/schema-registry.js';
import type { PageUpsert, StoreDialect } from './store-dialect.js';
import { StreamUsageError } from './store-errors.js';
import { type StoreRetryOptions, withStoreRetry } from './store-retry.js';
import type { StreamPresence } from './stream-presence.js';
import type { StreamTable } from './stream-tables.js';

/** What every verb needs: the dialect, the stream tables, and per-table parts built once. */
export interface StoreContext {
  readonly dialect: StoreDialect;
  /** The typed columns of every stream table, as the store holds them. */
  readonly schemas: SchemaRegistry;
  /**
   * The stream's table at its latest columns; throws `StreamUsageError` for a stream the catalogue
   * does not have, or whose table the store does not hold (stream-presence.ts).
   */
  table(stream: string): StreamTable;
  /** Throws `StreamUsageError` for a stream the catalogue does not have (its table need not exist: a child queued for later). */
  catalogued(stream: string): void;
  /** Built once per table version. */
  mapper(table: StreamTable): RowMapper;
  /** Built once per table version, after migrations created the table. */
  upsert(table: StreamTable): PageUpsert;
  /**
   * Runs one transaction or read under the store's retry (store-retry.ts): a dropped connection or
   * a busy database costs a repeat, not the run. A refusal names `what` (@default the verb).
   */
  retry<T>(verb: string, run: () => Promise<T>, what?: string): Promise<T>;
  /** The rows of runs that wrote nothing else, written a turn of the event loop at a time. */
  readonly endedRuns: EndedRuns;
  /** The ids other streams fetch by, from the unchanged snapshot passes of this process. */
  readonly passReferences: PassReferences;
  /** Forgets the runs older than `sync.keepRunsDays` as runs end (run-retention.ts). */
  readonly runRetention: RunRetention;
}

export function createStoreContext(
  dialect: StoreDialect,
  tables: ReadonlyMap<string, StreamTable>,
  presence?: Pick<StreamPresence, 'check'>,
  retry: StoreRetryOptions = {},
  keepRunsDays = 0,
): StoreContext {
  const mappers = new WeakMap<StreamTable, RowMapper>();
  const upserts = new WeakMap<StreamTable, PageUpsert>();
  const schemas = createSchemaRegistry(dialect.db, tables);
  const catalogued = (stream: string) => {
    if (!tables.has(stream)) throw new StreamUsageError(stream, 'not a stream of the catalogue');
  };
  return {
    dialect,
    schemas,
    table(stream) {
      catalogued(stream);
      presence?.check(stream);
      return schemas.table(stream);
    },
    catalogued,
    mapper: (table) => cached(mappers, table, () => createRowMapper(table)),
    upsert: (table) => cached(upserts, table, () => dialect.createPageUpsert(table)),
    retry: (verb, run, what) => withStoreRetry(verb, run, retry, what),
    endedRuns: createEndedRuns(dialect.db),
    passReferences: createPassReferences(),
    runRetention: createRunRetention({
      keepDays: keepRunsDays,
      forget: (before, limit) =>
        withStoreRetry('forgetRuns', () => forgetRuns(dialect.db, before, limit), retry),
      logger: retry.logger,
    }),
  };
}

/**
 * The scope value a verb works on: required for scoped streams, refused for the others, because a
 * scoped row written without its scope (or the reverse) would silently land in the wrong place.
 */
export function scopeValue(table: StreamTable, scope: string | undefined): string | null {
  if (table.scopeColumn === null) {
    if (scope !== undefined)
      throw new StreamUsageError(table.name, 'the stream has no scope, but one was given');
    return null;
  }
  if (!scope)
    throw new StreamUsageError(table.name, `the stream is scoped by ${table.scopeColumn}: give a scope`);
  return scope;
}

/** Stream tables are named by the catalogue at run time, so queries on them use this looser view. */
export function streamDb(db: Kysely<StoreDatabase>): Kysely<StreamTables> {
  return db as unknown as Kysely<StreamTables>;
}

function cached<T>(cache: WeakMap<StreamTable, T>, key: StreamTable, create: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = create();
    cache.set(key, value);
  }
  return value;
}
