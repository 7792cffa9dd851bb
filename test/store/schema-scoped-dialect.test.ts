import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { createPostgresKysely } from '../../src/store/postgres/postgres-kysely.js';
import { dialects } from './store-fixture.js';

// Stores of many connections share one PostgreSQL database, a schema each: the migrations of one
// schema wait for each other, never for another schema's, and a store introspects its own schema.

const postgres = dialects.find((dialect) => dialect.name === 'postgres')!.fixture();
let url: string;

const schemaUrl = (schema: string) => `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
const holdLockOf = async (schema: string) => {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  await client.query(`create schema if not exists ${schema}`);
  await client.query(`select pg_advisory_lock(hashtextextended(current_schema(), 3853314791062309107))`);
  return client;
};
const migrated = async (schema: string) => {
  const rows = await postgres.query<{ n: number }>(
    url,
    `select count(*)::int as n from information_schema.tables where table_schema = $1 and table_name = 'sync_state'`,
    [schema],
  );
  return rows[0]!.n === 1;
};

beforeAll(async () => {
  url = await postgres.freshUrl();
});
afterAll(() => postgres.cleanup());

describe('the migration lock of a PostgreSQL store', () => {
  it("is its schema's: one schema's migration held does not hold another's", async () => {
    const held = await holdLockOf('lock_a');
    try {
      const waiting = openStore(schemaUrl('lock_a'), { poolSize: 2 });
      const other = await openStore(schemaUrl('lock_b'), { poolSize: 2 });
      await other.close();
      expect(await migrated('lock_b')).toBe(true);
      expect(await migrated('lock_a')).toBe(false);
      await held.query('select pg_advisory_unlock_all()');
      await (await waiting).close();
      expect(await migrated('lock_a')).toBe(true);
    } finally {
      await held.end();
    }
  }, 60_000);

  it('keeps two migrations of one schema apart: both opens of a fresh schema succeed', async () => {
    const stores = await Promise.all([1, 2, 3].map(() => openStore(schemaUrl('lock_c'), { poolSize: 2 })));
    await Promise.all(stores.map((store) => store.close()));
    expect(await migrated('lock_c')).toBe(true);
  }, 60_000);
});

describe('the introspection of a PostgreSQL store', () => {
  it("lists its own schema's tables only, the Migrator's when asked, with their columns", async () => {
    for (const schema of ['own_a', 'own_b'])
      await (await openStore(schemaUrl(schema), { poolSize: 2 })).close();
    const db = createPostgresKysely({ connectionString: schemaUrl('own_a'), poolSize: 1, schema: 'own_a' });
    try {
      const tables = await db.introspection.getTables();
      expect(new Set(tables.map((table) => table.schema))).toEqual(new Set(['own_a']));
      expect(tables.filter((table) => table.name === 'sync_state')).toHaveLength(1);
      expect(tables.map((table) => table.name)).not.toContain('kysely_migration');
      const state = tables.find((table) => table.name === 'sync_state')!;
      expect(state.isView).toBe(false);
      expect(state.columns.find((column) => column.name === 'stream')).toMatchObject({
        dataType: 'text',
        isNullable: false,
      });
      expect(tables.some((table) => table.isView)).toBe(true);
      const withKysely = await db.introspection.getTables({ withInternalKyselyTables: true });
      expect(withKysely.map((table) => table.name)).toContain('kysely_migration');
    } finally {
      await db.destroy();
    }
  }, 60_000);
});
