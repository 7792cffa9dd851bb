import { Kysely } from 'kysely';
import pg from 'pg';
import type { Logger } from '../../logger.js';
import type { StoreDatabase } from '../database.js';
import { SchemaLockedPostgresDialect } from './schema-migration-lock.js';

const int8 = 20;
const date = 1082;

/**
 * Type parsers for this pool only (pg's global parsers would leak into other code): int8 to number,
 * as sequences, counts and ids stay below 2^53; dates as the `YYYY-MM-DD` text they are, not local midnight.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === int8) return (value: string) => Number(value);
    if (oid === date) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PostgresPoolOptions {
  readonly connectionString: string;
  readonly poolSize: number;
  readonly logger?: Logger | undefined;
  /** Set as each connection's `search_path`, alone: every table, view, trigger and function of the store goes there. */
  readonly schema?: string | undefined;
}

/**
 * Kysely on a pg Pool. A connection's error is logged, not thrown: an 'error' event without a
 * listener would crash the process, and pg emits one when a connection dies between two queries
 * of a transaction (the next query then fails, the store retries, and the pool drops the client).
 */
export function createPostgresKysely(options: PostgresPoolOptions): Kysely<StoreDatabase> {
  // A startup parameter, not a SET after connecting: no connection ever runs a statement elsewhere.
  const searchPath = options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` };
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize,
    types,
    ...searchPath,
  });
  const logError = (error: Error) =>
    options.logger?.warn({ err: error }, 'store: PostgreSQL connection failed');
  pool.on('error', logError);
  pool.on('connect', (client) => client.on('error', logError));
  return new Kysely<StoreDatabase>({ dialect: new SchemaLockedPostgresDialect({ pool }) });
}
