import { Kysely } from 'kysely';
import type { StoreDatabase } from '../database.js';
import { SchemaLockedPostgresDialect } from './schema-migration-lock.js';
import { openSchemaPool, type SchemaPoolOptions } from './schema-pool.js';

/**
 * Kysely on the process's pool of the database (shared-pools.ts), in the store's schema
 * (schema-pool.ts). The reference to the pool is taken at the first query and given back by
 * `destroy`: Kysely calls `end` only on a pool it took, so a store never queried holds none.
 */
export function createPostgresKysely(options: SchemaPoolOptions): Kysely<StoreDatabase> {
  const pool = async () => openSchemaPool(options);
  return new Kysely<StoreDatabase>({ dialect: new SchemaLockedPostgresDialect({ pool }) });
}
