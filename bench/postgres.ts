import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import pg from 'pg';

/** The server the PostgreSQL rows use, unless `--pg-url` names another: TEST_PG_URL, as the tests do. */
export function defaultPgUrl(): string {
  return process.env.TEST_PG_URL ?? `postgres://${userInfo().username}@127.0.0.1:5432/postgres`;
}

/** Fresh databases on one server, each dropped when done (a backfill is measured into an empty one). */
export interface PgDatabases {
  /** Creates an empty database and answers its URL. */
  fresh(): Promise<string>;
  drop(url: string): Promise<void>;
  close(): Promise<void>;
}

export async function connectPgDatabases(serverUrl: string): Promise<PgDatabases> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const created = new Set<string>();
  const drop = async (name: string) => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    created.delete(name);
  };
  return {
    async fresh() {
      const name = `tms_bench_${randomUUID().replaceAll('-', '')}`;
      await admin.query(`CREATE DATABASE ${name}`);
      created.add(name);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    drop: (url) => drop(new URL(url).pathname.slice(1)),
    async close() {
      for (const name of [...created]) await drop(name);
      await admin.end();
    },
  };
}
