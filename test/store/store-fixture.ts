import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { type OpenStoreOptions, openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

/** The PostgreSQL server tests use; each test file creates its own databases on it and drops them. */
export const testPgUrl =
  process.env.TEST_PG_URL ?? `postgres://${userInfo().username}@127.0.0.1:5432/postgres`;

/** One database per dialect and test file, emptied between tests, plus fresh ones on demand. */
export interface StoreFixture {
  readonly dialect: 'sqlite' | 'postgres';
  /** The file's shared store URL (created on first use). */
  url(): Promise<string>;
  /** A new, empty database's URL (dropped in `cleanup`). */
  freshUrl(): Promise<string>;
  /** Opens a store on the shared URL after emptying every table of it. */
  open(options?: OpenStoreOptions): Promise<Store>;
  /** Runs raw SQL on a URL of this fixture (to look under the store's verbs). */
  query<T = Record<string, unknown>>(url: string, text: string, params?: unknown[]): Promise<T[]>;
  cleanup(): Promise<void>;
}

function sqliteFixture(): StoreFixture {
  const dir = mkdtempSync(join(tmpdir(), 'tms-store-'));
  const shared = `sqlite:${join(dir, 'shared', 'store.sqlite')}`;
  const query = async <T>(url: string, text: string, params: unknown[] = []) => {
    const db = new BetterSqlite3(url.slice('sqlite:'.length));
    try {
      const statement = db.prepare(text);
      if (statement.reader) return statement.all(...params) as T[];
      statement.run(...params);
      return [];
    } finally {
      db.close();
    }
  };
  return {
    dialect: 'sqlite',
    url: async () => shared,
    freshUrl: async () => `sqlite:${join(dir, randomUUID(), 'store.sqlite')}`,
    async open(options) {
      const store = await openStore(shared, options);
      const tables = await query<{ name: string }>(
        shared,
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'",
      );
      for (const { name } of tables) await query(shared, `delete from "${name}"`);
      return store;
    },
    query,
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresFixture(): StoreFixture {
  const databases: string[] = [];
  let shared: Promise<string> | undefined;
  const sharedUrl = () => {
    shared ??= freshUrl();
    return shared;
  };
  const admin = async <T>(text: string) => query<T>(testPgUrl, text);
  const query = async <T>(url: string, text: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  const freshUrl = async () => {
    const name = `tms_store_test_${randomUUID().replaceAll('-', '')}`;
    await admin(`create database ${name}`);
    databases.push(name);
    const url = new URL(testPgUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return {
    dialect: 'postgres',
    url: sharedUrl,
    freshUrl,
    async open(options) {
      const url = await sharedUrl();
      const store = await openStore(url, options);
      const tables = await query<{ tablename: string }>(
        url,
        "select tablename from pg_tables where schemaname = 'public' and tablename not like 'kysely_%'",
      );
      if (tables.length)
        await query(url, `truncate ${tables.map((t) => `"${t.tablename}"`).join(', ')} restart identity`);
      return store;
    },
    query,
    async cleanup() {
      for (const name of databases) await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

/** The dialects every store test runs on. */
export const dialects = [
  { name: 'sqlite', fixture: sqliteFixture },
  { name: 'postgres', fixture: postgresFixture },
] as const;
