import type pg from 'pg';

export interface KeptClientsOptions {
  /** The process's pool of the database: where a client comes from and goes back to. */
  readonly pool: pg.Pool;
  /** How long a client given back stays kept for its schema before it goes back to the pool. @default 2000 */
  readonly keepMs?: number;
}

/**
 * The clients of the pool that stores gave back, kept by the schema their session's `search_path`
 * is in, so that the next store of that schema takes one without a SET. A worker of many
 * connections runs each connection's partitions together, so most of a store's statements find a
 * client of its schema; taken from pg's pool (last given back, first out), about 1.6 of a run's 4
 * statements were a SET (docs/performance-history.md, "2026-12-02 (clients kept by schema)").
 *
 * A kept client is taken by another schema only when the pool can give no client at once (every
 * connection open and in use), and goes back to the pool when a caller waits on it, after `keepMs`
 * unused, or at `drain`: the pool's size and waiters stay pg's, and its idle timeout counts from
 * there. A client whose connection failed goes back at once, and the pool drops it.
 */
export interface KeptClients {
  /** A client kept for `schema`, the longest kept of another when the pool has none free at once, or none. */
  take(schema: string): pg.PoolClient | undefined;
  /** Keeps a client given back in good order, in the schema its session is in. */
  keep(client: pg.PoolClient, schema: string): void;
  /** Gives every kept client back to the pool (before it ends). */
  drain(): void;
}

interface Kept {
  readonly client: pg.PoolClient;
  readonly schema: string;
  readonly at: number;
}

export function createKeptClients(options: KeptClientsOptions): KeptClients {
  const { pool } = options;
  const keepMs = options.keepMs ?? 2000;
  // Each schema's oldest first: its own schema takes the newest (its session the warmest).
  const bySchema = new Map<string, Kept[]>();
  const keptOf = new Map<pg.PoolClient, Kept>();
  const broken = new WeakSet<pg.PoolClient>();
  let sweeper: NodeJS.Timeout | undefined;

  const remove = (kept: Kept) => {
    const list = bySchema.get(kept.schema)!;
    list.splice(list.indexOf(kept), 1);
    if (list.length === 0) bySchema.delete(kept.schema);
    keptOf.delete(kept.client);
    if (keptOf.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  const giveBack = (kept: Kept) => {
    remove(kept);
    kept.client.release();
  };
  const sweep = () => {
    const before = performance.now() - keepMs;
    for (const kept of [...keptOf.values()]) if (kept.at <= before) giveBack(kept);
  };
  const oldest = () => {
    let found: Kept | undefined;
    for (const list of bySchema.values()) if (!found || list[0]!.at < found.at) found = list[0];
    return found;
  };
  // Every connection open and none idle: a new caller would wait on the pool.
  const poolFull = () => pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10);
  // A client whose connection failed or ended goes back to the pool, which drops it: at once if
  // kept, else when given back.
  pool.on('connect', (client) => {
    const poolClient = client as pg.PoolClient;
    const mark = () => {
      broken.add(poolClient);
      const kept = keptOf.get(poolClient);
      if (!kept) return;
      remove(kept);
      poolClient.release(new Error('its connection failed'));
    };
    client.on('error', mark);
    client.on('end', mark);
  });

  return {
    take(schema) {
      const own = bySchema.get(schema)?.at(-1);
      const kept = own ?? (keptOf.size > 0 && poolFull() ? oldest() : undefined);
      if (!kept) return undefined;
      remove(kept);
      return kept.client;
    },
    keep(client, schema) {
      if (broken.has(client)) {
        client.release(new Error('its connection failed'));
        return;
      }
      // Someone waits on the pool: it gets the client now, whatever its schema.
      if (pool.waitingCount > 0 || pool.ending) {
        client.release();
        return;
      }
      const kept = { client, schema, at: performance.now() };
      const list = bySchema.get(schema) ?? [];
      list.push(kept);
      bySchema.set(schema, list);
      keptOf.set(client, kept);
      if (!sweeper) {
        sweeper = setInterval(sweep, keepMs);
        sweeper.unref();
      }
    },
    drain() {
      for (const kept of [...keptOf.values()]) giveBack(kept);
    },
  };
}
