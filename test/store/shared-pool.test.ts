import { setTimeout as sleep } from 'node:timers/promises';
import type { PostgresPool } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { openSchemaPool } from '../../src/store/postgres/schema-pool.js';
import { takeSharedPool } from '../../src/store/postgres/shared-pools.js';
import type { Store } from '../../src/store/store.js';
import { invoice, keyed } from './records.js';
import { commitRecords, inRun } from './run-pages.js';
import { dialects } from './store-fixture.js';

// PostgreSQL only: the stores of one database in one process, a schema each, on one pool.

const postgres = dialects.find((dialect) => dialect.name === 'postgres')!.fixture();
let database: string;

beforeAll(async () => {
  database = await postgres.freshUrl();
});
afterAll(() => postgres.cleanup());

/** The database's URL under an application name of its own: the server's sessions of its pool can be counted. */
function urlNamed(name: string): string {
  const url = new URL(database);
  url.searchParams.set('application_name', name);
  return url.toString();
}

async function sessionsOf(name: string): Promise<number> {
  const [row] = await postgres.query<{ count: number }>(
    database,
    'select count(*)::int as count from pg_stat_activity where application_name = $1',
    [name],
  );
  return row!.count;
}

/** A client of the pool's session: its `search_path` and backend. */
async function sessionOf(pool: PostgresPool): Promise<{ path: string; pid: number }> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ path: string; pid: number }>(
      "select current_setting('search_path') as path, pg_backend_pid() as pid",
      [],
    );
    return rows[0]!;
  } finally {
    client.release();
  }
}

/** Three runs of five pages of ten invoices, the same ids in every store, each number tagged. */
async function writeRuns(store: Store, tag: string): Promise<void> {
  for (let run = 1; run <= 3; run++)
    await inRun(store, 'invoices', async (partitionRun) => {
      for (let page = 0; page < 5; page++) {
        const ids = Array.from({ length: 10 }, (_, i) => `inv-${page}-${i}`);
        const records = keyed(ids.map((id) => invoice(id, run, { number: `${tag}-${run}` })));
        await partitionRun.commitPage({ state: { strategyState: null }, records });
      }
    });
}

describe('the stores of one PostgreSQL database share the pool of the process', () => {
  it('three stores writing at once in three schemas hold one pool between them, and each schema only its own rows', async () => {
    const name = 'tms_shared_pool_writes';
    const url = urlNamed(name);
    const schemas = ['tms_a', 'tms_b', undefined] as const;
    const stores: Store[] = [];
    for (const schema of schemas)
      stores.push(
        await openStore(url, { poolSize: 2, streams: ['invoices'], ...(schema ? { schema } : {}) }),
      );
    try {
      let most = 0;
      let writing = true;
      const watching = (async () => {
        while (writing) {
          most = Math.max(most, await sessionsOf(name));
          await sleep(5);
        }
      })();
      await Promise.all(stores.map((store, i) => writeRuns(store, `s${i}`))).finally(() => {
        writing = false;
      });
      await watching;
      most = Math.max(most, await sessionsOf(name));
      expect(most).toBeGreaterThan(0);
      // A pool each would hold at least one connection per store.
      expect(most).toBeLessThanOrEqual(2);
      for (const [i, schema] of schemas.entries()) {
        const rows = await postgres.query<{ number: string }>(
          database,
          `select data->>'number' as number from ${schema ?? 'public'}.invoices`,
        );
        expect(rows).toHaveLength(50);
        expect(new Set(rows.map((row) => row.number))).toEqual(new Set([`s${i}-3`]));
        const [runs] = await postgres.query<{ count: number }>(
          database,
          `select count(*)::int as count from ${schema ?? 'public'}.sync_runs`,
        );
        expect(runs!.count).toBe(3);
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('closing one store leaves the other working; closing the last ends the pool, and a store opened after gets a new one', async () => {
    const name = 'tms_shared_pool_close';
    const url = urlNamed(name);
    const open = (schema: string) => openStore(url, { schema, streams: ['invoices'] });
    const first = await open('tms_c');
    const second = await open('tms_d');
    await commitRecords(first, 'invoices', { records: keyed([invoice('x', 1)]) });
    await commitRecords(second, 'invoices', { records: keyed([invoice('x', 1)]) });
    await first.close();
    await commitRecords(second, 'invoices', { records: keyed([invoice('y', 2)]) });
    expect((await second.readRows('invoices')).map((row) => row.id)).toEqual(['x', 'y']);
    expect(await sessionsOf(name)).toBeGreaterThan(0);
    await second.close();
    // An idle connection would stay 10 s (pg's idle timeout) in a pool left open.
    await expect.poll(() => sessionsOf(name), { timeout: 2000 }).toBe(0);
    const again = await open('tms_c');
    try {
      expect((await again.readRows('invoices')).map((row) => row.id)).toEqual(['x']);
    } finally {
      await again.close();
    }
  });
});

describe('a schema pool', () => {
  it('hands a client to each store in its schema, and one already in it without a statement', async () => {
    const connectionString = urlNamed('tms_shared_pool_paths');
    const a = openSchemaPool({ connectionString, poolSize: 1, schema: 'tms_a' });
    const b = openSchemaPool({ connectionString, poolSize: 1, schema: 'tms_b' });
    const server = openSchemaPool({ connectionString, poolSize: 1 });
    try {
      const first = await sessionOf(a);
      expect(first.path).toBe('tms_a');
      expect(await sessionOf(b)).toEqual({ path: 'tms_b', pid: first.pid });
      expect(await sessionOf(server)).toEqual({ path: '"$user", public', pid: first.pid });
      expect(await sessionOf(a)).toEqual({ path: 'tms_a', pid: first.pid });
      // Moved behind the pool's back: a store whose schema the client is in runs no SET.
      const client = await a.connect();
      await client.query("select set_config('search_path', 'pg_catalog', false)", []);
      client.release();
      expect((await sessionOf(a)).path).toBe('pg_catalog');
      expect((await sessionOf(b)).path).toBe('tms_b');
    } finally {
      await Promise.all([a.end(), b.end(), server.end()]);
    }
  });

  it('gives each schema back the client it gave back: two schemas taking turns keep a session each, with no SET', async () => {
    const connectionString = urlNamed('tms_shared_pool_kept');
    const a = openSchemaPool({ connectionString, poolSize: 2, schema: 'tms_a' });
    const b = openSchemaPool({ connectionString, poolSize: 2, schema: 'tms_b' });
    try {
      const first = { a: await sessionOf(a), b: await sessionOf(b) };
      expect(first.a.pid).not.toBe(first.b.pid);
      // pg's pool alone hands out the client given back last: the other schema's, then a SET.
      for (let turn = 0; turn < 3; turn++) {
        expect(await sessionOf(a)).toEqual(first.a);
        expect(await sessionOf(b)).toEqual(first.b);
      }
      // The kept one still answers behind the pool's back (no SET): it is the same session.
      const client = await a.connect();
      await client.query("select set_config('search_path', 'pg_catalog', false)", []);
      client.release();
      expect(await sessionOf(a)).toEqual({ path: 'pg_catalog', pid: first.a.pid });
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('with every connection in use, a schema takes the longest kept client of another, and a caller waiting gets the next one given back', async () => {
    const connectionString = urlNamed('tms_shared_pool_full');
    const a = openSchemaPool({ connectionString, poolSize: 2, schema: 'tms_a' });
    const b = openSchemaPool({ connectionString, poolSize: 2, schema: 'tms_b' });
    const c = openSchemaPool({ connectionString, poolSize: 2, schema: 'tms_c' });
    try {
      const pidA = (await sessionOf(a)).pid;
      const pidB = (await sessionOf(b)).pid;
      // Both connections kept (a's the longer): c takes a's, in its own schema.
      expect(await sessionOf(c)).toEqual({ path: 'tms_c', pid: pidA });
      expect(await sessionOf(b)).toEqual({ path: 'tms_b', pid: pidB });
      const held = [await a.connect(), await b.connect()];
      let waited: { path: string; pid: number } | undefined;
      const waiting = sessionOf(c).then((session) => {
        waited = session;
      });
      await sleep(50);
      expect(waited).toBeUndefined();
      held[1]!.release();
      await waiting;
      expect(waited).toEqual({ path: 'tms_c', pid: pidB });
      held[0]!.release();
    } finally {
      await Promise.all([a.end(), b.end(), c.end()]);
    }
  });

  it('gives a kept client back to the pool after a while, and drops one whose connection ended', async () => {
    const connectionString = urlNamed('tms_shared_pool_kept_ends');
    const reference = takeSharedPool({ connectionString, poolSize: 2 });
    const a = openSchemaPool({ connectionString, poolSize: 2, schema: 'tms_a' });
    try {
      const { pool } = reference.shared;
      const first = await sessionOf(a);
      // Kept: out of pg's pool, not idle in it.
      expect(pool.idleCount).toBe(0);
      await expect.poll(() => pool.idleCount, { timeout: 6000, interval: 100 }).toBe(1);
      expect(await sessionOf(a)).toEqual(first);
      await postgres.query(database, 'select pg_terminate_backend($1)', [first.pid]);
      await expect.poll(() => pool.totalCount, { timeout: 5000 }).toBe(0);
      const next = await sessionOf(a);
      expect(next.path).toBe('tms_a');
      expect(next.pid).not.toBe(first.pid);
    } finally {
      await a.end();
      await reference.release();
    }
  });

  it('drops a client given back with an error, as pg does, instead of keeping it', async () => {
    const connectionString = urlNamed('tms_shared_pool_released_error');
    const a = openSchemaPool({ connectionString, poolSize: 1, schema: 'tms_a' });
    try {
      const client = await a.connect();
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid', []);
      (client.release as (error?: Error) => void)(new Error('broken by its user'));
      const next = await sessionOf(a);
      expect(next.path).toBe('tms_a');
      expect(next.pid).not.toBe(rows[0]!.pid);
    } finally {
      await a.end();
    }
  });

  it('drops a client whose SET fails instead of handing it out', async () => {
    const connectionString = urlNamed('tms_shared_pool_broken');
    const a = openSchemaPool({ connectionString, poolSize: 1, schema: 'tms_a' });
    const b = openSchemaPool({ connectionString, poolSize: 1, schema: 'tms_b' });
    try {
      // A transaction left failed: any statement on the client now fails, the SET included.
      const failed = await a.connect();
      const { rows } = await failed.query<{ pid: number }>('select pg_backend_pid() as pid', []);
      await failed.query('begin', []);
      await expect(failed.query('select 1/0', [])).rejects.toThrow(/division by zero/);
      failed.release();
      await expect(b.connect()).rejects.toThrow(/current transaction is aborted/);
      const next = await sessionOf(b);
      expect(next.path).toBe('tms_b');
      expect(next.pid).not.toBe(rows[0]!.pid);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('is one pg Pool per database, of the largest size asked, ended with its last reference', async () => {
    const one = takeSharedPool({ connectionString: urlNamed('tms_shared_pool_size'), poolSize: 1 });
    const three = takeSharedPool({ connectionString: urlNamed('tms_shared_pool_size'), poolSize: 3 });
    const two = takeSharedPool({ connectionString: urlNamed('tms_shared_pool_size'), poolSize: 2 });
    const elsewhere = takeSharedPool({ connectionString: urlNamed('tms_shared_pool_other'), poolSize: 1 });
    expect(three.shared).toBe(one.shared);
    expect(two.shared).toBe(one.shared);
    expect(elsewhere.shared).not.toBe(one.shared);
    expect(one.shared.pool.options.max).toBe(3);
    await three.release();
    await three.release();
    await one.release();
    expect(one.shared.pool.ended).toBe(false);
    await two.release();
    expect(one.shared.pool.ended).toBe(true);
    expect(elsewhere.shared.pool.ended).toBe(false);
    await elsewhere.release();
  });
});
