import pg from 'pg';
import type { Logger } from '../../logger.js';
import { createKeptClients, type KeptClients } from './kept-clients.js';

const int8 = 20;
const date = 1082;

/**
 * Type parsers for these pools only (pg's global parsers would leak into other code): int8 to number,
 * as sequences, counts and ids stay below 2^53; dates as the `YYYY-MM-DD` text they are, not local midnight.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === int8) return (value: string) => Number(value);
    if (oid === date) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** The process's pool of one database, and what its users know of each client's session. */
export interface SharedPool {
  readonly pool: pg.Pool;
  /** The clients stores gave back, kept by their session's schema (kept-clients.ts). */
  readonly kept: KeptClients;
  /** The schema each client's `search_path` is set to now; absent: the server's default (a new client). */
  readonly schemaOf: WeakMap<pg.PoolClient, string>;
  /** The logger of the store that took each client last: a client's failure is logged as its. */
  readonly loggerOf: WeakMap<pg.PoolClient, Logger | undefined>;
}

export interface SharedPoolOptions {
  /** The database, without any schema: stores whose URLs are the same text share the pool. */
  readonly connectionString: string;
  /** Connections this user needs: the pool holds the largest number any of its users asked. */
  readonly poolSize: number;
}

/** A user's reference to a shared pool: `release` once, and the last one ends the pool. */
export interface SharedPoolReference {
  readonly shared: SharedPool;
  release(): Promise<void>;
}

interface Entry {
  readonly shared: SharedPool;
  users: number;
}

const pools = new Map<string, Entry>();

/**
 * Takes a reference to the process's pool of the database, made at the first: however many
 * stores of one database a process opens (a worker of many connections, a schema each), it holds
 * at most the largest `poolSize` asked of PostgreSQL connections to it. A connection's error is
 * logged, not thrown: an 'error' event without a listener would crash the process, and pg emits
 * one when a connection dies between two queries of a transaction (the next query then fails,
 * the store retries, and the pool drops the client).
 */
export function takeSharedPool(options: SharedPoolOptions): SharedPoolReference {
  let entry = pools.get(options.connectionString);
  if (!entry) {
    entry = { shared: createSharedPool(options), users: 0 };
    pools.set(options.connectionString, entry);
  }
  entry.users += 1;
  const { pool } = entry.shared;
  pool.options.max = Math.max(pool.options.max, options.poolSize);
  let released = false;
  const taken = entry;
  return {
    shared: taken.shared,
    async release() {
      if (released) return;
      released = true;
      taken.users -= 1;
      if (taken.users > 0) return;
      // Out of the map before it ends: a store opened meanwhile makes a new pool, not one ending.
      pools.delete(options.connectionString);
      taken.shared.kept.drain();
      await pool.end();
    },
  };
}

function createSharedPool(options: SharedPoolOptions): SharedPool {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize, types });
  const loggerOf = new WeakMap<pg.PoolClient, Logger | undefined>();
  const logError = (error: Error, client: pg.PoolClient) =>
    loggerOf.get(client)?.warn({ err: error }, 'store: PostgreSQL connection failed');
  pool.on('error', logError);
  pool.on('connect', (client) => client.on('error', (error) => logError(error, client)));
  return { pool, kept: createKeptClients({ pool }), schemaOf: new WeakMap(), loggerOf };
}
