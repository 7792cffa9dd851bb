import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { ConnectionFile } from '../../config/connection-file.js';
import type { Settings } from '../../config/settings.js';
import { type StoreLocation, storeLocation } from '../../config/store-url.js';
import { openStore } from '../store/open-store.js';
import { storeOptionsOf } from '../sync/store-options.js';

/** A row of `tms_connections`: a connection the CLI added, or the pause of one of the config file. */
export interface StoredConnection {
  readonly name: string;
  /** The connection as the config file writes one (tokens as references); null: a file connection's pause only. */
  readonly entry: ConnectionFile | null;
  readonly paused: boolean;
}

/** The control table of the connections (docs/connections.md), in the default connection's store. */
export interface ConnectionControl {
  list(): Promise<StoredConnection[]>;
  /** Adds a connection; false when the name has a row already. */
  add(name: string, entry: ConnectionFile): Promise<boolean>;
  /** Pauses or resumes a connection: its row's flag, or a row of its own for a connection of the file. */
  setPaused(name: string, paused: boolean): Promise<void>;
  /** Removes the connection's row; false when it had none. */
  remove(name: string): Promise<boolean>;
  close(): Promise<void>;
}

interface ControlDatabase {
  tms_connections: { name: string; entry: string | null; paused: number; updated_at: string };
}

const table = 'tms_connections';

/**
 * The control table of the default connection's store. To read (`write` false) nothing is made: a
 * store or table not there yet reads as no rows. To write, the store is migrated first (which
 * makes the table, `0015-connections`). Its own small connection: the store's interface is the
 * sync engine's, and the table is the fleet's, not a stream's.
 */
export async function openConnectionControl(
  settings: Settings,
  { write = false }: { readonly write?: boolean } = {},
): Promise<ConnectionControl> {
  if (write) await (await openStore(settings.storeUrl, { ...storeOptionsOf(settings), streams: [] })).close();
  const location = storeLocation(settings.storeUrl, settings.storeSchema);
  const db = await openControlDatabase(location);
  if (db === undefined || !(await hasTable(db, location.kind))) {
    await db?.destroy();
    return emptyControl();
  }
  return tableControl(db);
}

async function openControlDatabase(location: StoreLocation): Promise<Kysely<ControlDatabase> | undefined> {
  if (location.kind === 'sqlite') {
    if (!existsSync(location.path)) return undefined;
    const database = new Database(location.path);
    // The store's own thread may be writing: wait for it rather than fail.
    database.pragma('busy_timeout = 5000');
    return new Kysely<ControlDatabase>({ dialect: new SqliteDialect({ database }) });
  }
  const { createPostgresKysely } = await import('../store/postgres/postgres-kysely.js');
  const db = createPostgresKysely({ connectionString: location.url, poolSize: 1, schema: location.schema });
  return db as unknown as Kysely<ControlDatabase>;
}

/** Whether the store has the table, in its own schema only (Kysely's introspection would look in every schema). */
async function hasTable(db: Kysely<ControlDatabase>, kind: StoreLocation['kind']): Promise<boolean> {
  const query =
    kind === 'sqlite'
      ? sql<{
          present: number;
        }>`select count(*) as present from sqlite_master where type = 'table' and name = ${table}`
      : sql<{ present: number }>`select count(*) as present from pg_class where oid = to_regclass(${table})`;
  const { rows } = await query.execute(db);
  return Number(rows[0]?.present) > 0;
}

function tableControl(db: Kysely<ControlDatabase>): ConnectionControl {
  const now = () => new Date().toISOString();
  return {
    async list() {
      const rows = await db.selectFrom(table).select(['name', 'entry', 'paused']).orderBy('name').execute();
      return rows.map((row) => ({
        name: row.name,
        entry: row.entry === null ? null : (JSON.parse(row.entry) as ConnectionFile),
        paused: Number(row.paused) === 1,
      }));
    },
    async add(name, entry) {
      const result = await db
        .insertInto(table)
        .values({ name, entry: JSON.stringify(entry), paused: entry.paused ? 1 : 0, updated_at: now() })
        .onConflict((conflict) => conflict.column('name').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async setPaused(name, paused) {
      await db
        .insertInto(table)
        .values({ name, entry: null, paused: paused ? 1 : 0, updated_at: now() })
        .onConflict((conflict) =>
          conflict.column('name').doUpdateSet({ paused: paused ? 1 : 0, updated_at: now() }),
        )
        .execute();
    },
    async remove(name) {
      const result = await db.deleteFrom(table).where('name', '=', name).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    close: () => db.destroy(),
  };
}

/** Reads the control table's rows again and again, over one connection held between reads. */
export interface ControlRowsReader {
  rows(): Promise<StoredConnection[]>;
  close(): Promise<void>;
}

/**
 * The control table of `file` (the settings as loaded) read on demand: until the table exists,
 * each read looks again (the first `connections` change makes it), then one connection is kept.
 */
export function controlRowsReader(file: Settings): ControlRowsReader {
  let control: ConnectionControl | undefined;
  let found = false;
  return {
    async rows() {
      if (!found) {
        await control?.close();
        control = await openConnectionControl(file);
      }
      const rows = await control!.list();
      found = rows.length > 0;
      return rows;
    },
    close: async () => control?.close(),
  };
}

function emptyControl(): ConnectionControl {
  const unwritable = () => Promise.reject(new Error('the control table was opened to read'));
  return {
    list: async () => [],
    add: unwritable,
    setPaused: unwritable,
    remove: unwritable,
    close: async () => {},
  };
}
