import type { Kysely } from 'kysely';
import { sharedColumn, type TypedColumn } from '../columns/typed-column.js';
import type { StoreDatabase } from '../database.js';
import type { StreamTable } from '../stream-tables.js';

/** A table grown by a write that has not committed yet, and how the write reports its end. */
interface GrownTable {
  readonly table: StreamTable;
  /** Call once the growing write ended: committed, or not (rolled back, failed: read the store again). */
  settle(committed: boolean): Promise<void>;
}

/**
 * The typed columns of every stream table, as the store holds them in `stream_columns` and
 * `stream_schemas`. A write that meets new fields grows its table (a new version, tentative until
 * its transaction commits); writes prepared with that version wait for it (`ready`), and a write
 * that finds the version moved under it (another process grew the table) reads it again.
 */
export interface SchemaRegistry {
  /** The table at its latest version known here. */
  table(stream: string): StreamTable;
  /** Reads every stream's columns and version (at open, after the migrations). */
  load(): Promise<void>;
  /** Reads one stream's columns and version again. */
  reload(stream: string): Promise<void>;
  grow(table: StreamTable, added: readonly TypedColumn[]): GrownTable;
  /** Resolves once the version `table` was prepared with is committed or known to be lost. */
  ready(table: StreamTable): Promise<void>;
}

interface Entry {
  table: StreamTable;
  /** The highest version known to be committed. */
  committed: number;
  /** Growing writes in flight, by the version they create. */
  readonly growing: Map<number, Promise<void>>;
}

export function createSchemaRegistry(
  db: Kysely<StoreDatabase>,
  catalogueTables: ReadonlyMap<string, StreamTable>,
): SchemaRegistry {
  const entries = new Map<string, Entry>();
  for (const [stream, table] of catalogueTables)
    entries.set(stream, { table, committed: 0, growing: new Map() });
  const entry = (stream: string) => entries.get(stream)!;

  const read = async (streams: readonly string[]) => {
    const [columns, versions] = await Promise.all([
      db
        .selectFrom('stream_columns')
        .selectAll()
        .where('stream', 'in', streams)
        .orderBy('position')
        .execute(),
      db
        .selectFrom('stream_schemas')
        .select(['stream', 'version', 'history_since'])
        .where('stream', 'in', streams)
        .execute(),
    ]);
    for (const stream of streams) {
      const current = entry(stream);
      const schema = versions.find((row) => row.stream === stream);
      const version = Number(schema?.version ?? 0);
      const stored = columns.filter((row) => row.stream === stream).map(toColumn);
      const since = schema?.history_since ?? null;
      const history = since === null ? null : new Date(since).toISOString();
      current.table = Object.freeze({ ...catalogueTables.get(stream)!, columns: stored, version, history });
      current.committed = version;
    }
  };

  return {
    table: (stream) => entry(stream).table,
    load: () => read([...catalogueTables.keys()]),
    reload: (stream) => read([stream]),
    grow(table, added) {
      const current = entry(table.name);
      const grown: StreamTable = Object.freeze({
        ...table,
        columns: [...table.columns, ...added],
        version: table.version + 1,
      });
      let done!: () => void;
      current.growing.set(grown.version, new Promise<void>((resolve) => (done = resolve)));
      current.table = grown;
      return {
        table: grown,
        async settle(committed) {
          if (committed) current.committed = Math.max(current.committed, grown.version);
          else await read([table.name]).catch(() => undefined);
          current.growing.delete(grown.version);
          done();
        },
      };
    },
    async ready(table) {
      const current = entry(table.name);
      const waits = [...current.growing]
        .filter(([version]) => version <= table.version && version > current.committed)
        .map(([, pending]) => pending);
      await Promise.all(waits);
    },
  };
}

export function toColumn(row: { name: string; path: string; type: string; origin: string }): TypedColumn {
  return sharedColumn({
    name: row.name,
    path: JSON.parse(row.path) as string[],
    type: row.type as TypedColumn['type'],
    origin: row.origin as TypedColumn['origin'],
  });
}
