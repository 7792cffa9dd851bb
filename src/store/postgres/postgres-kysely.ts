import { userInfo } from 'node:os';
import { Kysely } from 'kysely';
import type { StoreDatabase } from '../database.js';
import { openSchemaPool, type SchemaPoolOptions } from './schema-pool.js';
import { SchemaScopedPostgresDialect } from './schema-scoped-dialect.js';

/**
 * Kysely on the process's pool of the database (shared-pools.ts), in the store's schema
 * (schema-pool.ts). The reference to the pool is taken at the first query and given back by
 * `destroy`: Kysely calls `end` only on a pool it took, so a store never queried holds none.
 */
export function createPostgresKysely(options: SchemaPoolOptions): Kysely<StoreDatabase> {
  const connectionString = withDefaultUser(options.connectionString);
  const pool = async () => openSchemaPool({ ...options, connectionString });
  return new Kysely<StoreDatabase>({ dialect: new SchemaScopedPostgresDialect({ pool }) });
}

/**
 * Like libpq (psql): without a user in the URL or PGUSER, connect as the OS user (pg would send
 * none where USER is unset, as in many containers and services). Every pool of the product opens
 * here: the stores', the control table's and the union views'.
 */
function withDefaultUser(value: string): string {
  const url = new URL(value);
  if (url.username !== '' || process.env.PGUSER || process.env.USER) return value;
  url.username = userInfo().username;
  return url.toString();
}
