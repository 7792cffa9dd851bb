import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { liveViewName, liveViewStatement } from '../../src/store/live-view.js';
import { type OpenStoreOptions, openStore } from '../../src/store/open-store.js';
import { postgresTypes } from '../../src/store/postgres/postgres-types.js';
import { sqliteTypes } from '../../src/store/sqlite/sqlite-types.js';
import type { Store } from '../../src/store/store.js';
import type { SqlTypes } from '../../src/store/store-dialect.js';

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
  /** Drops a database `freshUrl` made, before `cleanup` (a soak makes thousands). */
  dropFresh(url: string): Promise<void>;
  /** Opens a store on the shared URL, every table of it emptied first. */
  open(options?: OpenStoreOptions): Promise<Store>;
  /** Runs raw SQL on a URL of this fixture (to look under the store's verbs). */
  query<T = Record<string, unknown>>(url: string, text: string, params?: unknown[]): Promise<T[]>;
  cleanup(): Promise<void>;
}

/** The typed-column registry: kept between tests, with the columns the data added taken out. */
const registryTables = new Set(['stream_columns', 'stream_schemas']);

/**
 * Back to the catalogue's columns: what one test's records added must not shape the next test's
 * tables. PostgreSQL's live views name every column, so a table's view goes with its columns and
 * comes back without them.
 */
async function dropInferredColumns(
  query: (text: string) => Promise<unknown[]>,
  types: Pick<SqlTypes, 'viewsFixColumns'>,
): Promise<void> {
  const inferred = (await query(
    "select stream, name from stream_columns where origin = 'inferred'",
  )) as Array<{ stream: string; name: string }>;
  const streams = new Set(inferred.map((column) => column.stream));
  if (types.viewsFixColumns)
    for (const stream of streams) await query(`drop view if exists "${liveViewName(stream)}"`);
  for (const { stream, name } of inferred) await query(`alter table "${stream}" drop column "${name}"`);
  for (const stream of streams) await query(liveViewStatement(stream, types).sql);
  await query("delete from stream_columns where origin = 'inferred'");
  await query('update stream_schemas set version = version + 1, refused_fields = 0');
  await query('update stream_columns set drift = 0, drift_sample = null, drift_at = null');
}

function sqliteFixture(): StoreFixture {
  const dir = mkdtempSync(join(tmpdir(), 'tms-store-'));
  // A store's directory must exist (only ./data is made): each URL gets its own, made here.
  const inNewDirectory = (name: string) => {
    mkdirSync(join(dir, name));
    return `sqlite:${join(dir, name, 'store.sqlite')}`;
  };
  const shared = inNewDirectory('shared');
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
    freshUrl: async () => inNewDirectory(randomUUID()),
    dropFresh: async (url) => rmSync(dirname(url.slice('sqlite:'.length)), { recursive: true, force: true }),
    async open(options) {
      const tables = await query<{ name: string }>(
        shared,
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'",
      );
      if (tables.some((table) => table.name === 'stream_columns'))
        await dropInferredColumns((text) => query(shared, text), sqliteTypes);
      for (const { name } of tables)
        if (!registryTables.has(name)) await query(shared, `delete from "${name}"`);
      return openStore(shared, options);
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
    async dropFresh(url) {
      const name = new URL(url).pathname.slice(1);
      await admin(`drop database if exists ${name} with (force)`);
      databases.splice(databases.indexOf(name), 1);
    },
    async open(options) {
      const url = await sharedUrl();
      const tables = await query<{ tablename: string }>(
        url,
        "select tablename from pg_tables where schemaname = 'public' and tablename not like 'kysely_%'",
      );
      if (tables.some((table) => table.tablename === 'stream_columns'))
        await dropInferredColumns((text) => query(url, text), postgresTypes);
      const emptied = tables.filter((t) => !registryTables.has(t.tablename));
      if (emptied.length)
        await query(url, `truncate ${emptied.map((t) => `"${t.tablename}"`).join(', ')} restart identity`);
      return openStore(url, options);
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
