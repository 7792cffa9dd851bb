import { Kysely, PostgresDialect } from 'kysely';
import type { Logger } from '../../logger.js';
import type { StoreDatabase } from '../database.js';
import { openSchemaPool } from './schema-pool.js';

export interface PostgresPoolOptions {
  readonly connectionString: string;
  /** Connections the store needs at once: its database's pool in the process holds the largest number asked. */
  readonly poolSize: number;
  readonly logger?: Logger | undefined;
  /** Set as each connection's `search_path`, alone: every table, view, trigger and function of the store goes there. */
  readonly schema?: string | undefined;
}

/**
 * Kysely on the process's pool of the database (shared-pools.ts), in the store's schema
 * (schema-pool.ts). The reference to the pool is taken at the first query and given back by
 * `destroy`: Kysely calls `end` only on a pool it took, so a store never queried holds none.
 */
export function createPostgresKysely(options: PostgresPoolOptions): Kysely<StoreDatabase> {
  const pool = async () => openSchemaPool(options);
  return new Kysely<StoreDatabase>({ dialect: new PostgresDialect({ pool }) });
}
