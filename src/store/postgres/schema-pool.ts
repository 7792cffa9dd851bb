import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { Logger } from '../../logger.js';
import { type SharedPool, type SharedPoolOptions, takeSharedPool } from './shared-pools.js';

export interface SchemaPoolOptions extends SharedPoolOptions {
  /**
   * The `search_path`, alone, of every client handed out: every table, view, trigger and function
   * of the store goes there. @default the server's default
   */
  readonly schema?: string | undefined;
  /** Where a failure of a client this store took last is logged. @default not logged */
  readonly logger?: Logger | undefined;
}

/**
 * One store's door to the process's pool of its database (shared-pools.ts), as Kysely takes a
 * pool: each client is handed out with its `search_path` set to the store's schema alone, so any
 * number of stores, a schema each, share the pool's connections. A client given back is kept for
 * its schema (kept-clients.ts), and the path is set only when the client's session is in another;
 * a client whose SET fails is dropped, never handed out. `end` gives the store's reference back.
 */
export function openSchemaPool(options: SchemaPoolOptions): PostgresPool {
  const { shared, release } = takeSharedPool(options);
  const { pool, kept, schemaOf, loggerOf } = shared;
  const { schema } = options;
  // Outside any transaction (Kysely begins one after taking the client): no rollback undoes it.
  const setPath =
    schema === undefined ? 'RESET search_path' : `SET search_path TO ${pg.escapeIdentifier(schema)}`;
  return {
    async connect() {
      const client = kept.take(schema ?? '') ?? (await pool.connect());
      loggerOf.set(client, options.logger);
      if (schemaOf.get(client) !== schema) {
        try {
          await client.query(setPath);
        } catch (error) {
          client.release(error as Error);
          throw error;
        }
        if (schema === undefined) schemaOf.delete(client);
        else schemaOf.set(client, schema);
      }
      return handedOut(shared, client);
    },
    end: release,
  };
}

/**
 * What Kysely takes of a client: one per client, whose `release` keeps it for its session's schema
 * (one with an error, as pg's, goes back to the pool, which drops it).
 */
const handed = new WeakMap<pg.PoolClient, PostgresPoolClient>();

function handedOut(shared: SharedPool, client: pg.PoolClient): PostgresPoolClient {
  let out = handed.get(client);
  if (!out) {
    out = {
      query: client.query.bind(client) as PostgresPoolClient['query'],
      release: (error?: Error | boolean) =>
        error ? client.release(error) : shared.kept.keep(client, shared.schemaOf.get(client) ?? ''),
    };
    handed.set(client, out);
  }
  return out;
}
