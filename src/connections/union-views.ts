import { type Kysely, sql } from 'kysely';
import { defaultConnectionName } from '../../config/connections/connection-name.js';
import { connectionShape } from '../../config/connections/connection-settings.js';
import { connectionNames } from '../../config/resolve-connection.js';
import type { Settings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import { type StoreLocation, storeLocation } from '../../config/store-url.js';
import { streams } from '../../config/streams.js';
import { liveViewName } from '../store/live-view.js';
import { type SourceColumn, sharedColumns, type UnionSource, unionViewSql } from './union-view-sql.js';

export interface UnionViewsOptions {
  /** The schema the views are made in (made when missing). @default 'tms_all' */
  readonly schema?: string;
  /**
   * A worker keeping the views: only the views whose mirrors' columns differ from this fingerprint
   * (an earlier report's) are made, and none when another process is making them. @default all made, waiting for another process
   */
  readonly unlessFingerprint?: string | undefined;
}

/** What `refreshUnionViews` made. */
export interface UnionViewsReport {
  readonly schema: string;
  /** Whether views were made now (false: unchanged since `unlessFingerprint`, or another process had the lock). */
  readonly made: boolean;
  /** The mirrors' schemas, relations and columns, summed up by relation: equal while the views stay right. */
  readonly fingerprint: string;
  /** The connections whose schemas the views read. */
  readonly connections: readonly string[];
  /** Connections left out: on SQLite, or in another PostgreSQL database than the default's. */
  readonly skipped: ReadonlyArray<{ readonly connection: string; readonly reason: string }>;
  /** Each view made now: the connections it reads and the columns they share. */
  readonly views: ReadonlyArray<{
    readonly name: string;
    readonly connections: number;
    readonly columns: number;
  }>;
}

interface Mirror {
  readonly connection: string;
  readonly schema: string;
}

/**
 * Makes, in `schema` of the default connection's PostgreSQL database, one view per stream table
 * (and live view) that any connection in that database has: the UNION ALL of it over those
 * connections, with the column `connection` first and the columns they all share
 * (union-view-sql.ts). Made again from scratch, each in a transaction of its own (a query sees each
 * view whole, old or new): run it after adding or removing a connection, or once new fields brought
 * new columns. With `unlessFingerprint`, only the views whose mirrors' columns changed since are
 * made (new fields of one stream remake its two views, not the 54; a connection added or removed
 * remakes every view). `settings`: the control table's connections merged in.
 */
export async function refreshUnionViews(
  settings: Settings,
  options: UnionViewsOptions = {},
): Promise<UnionViewsReport> {
  const schema = options.schema ?? 'tms_all';
  const home = storeLocation(settings.storeUrl, settings.storeSchema);
  if (home.kind !== 'postgres')
    throw new SettingsError(
      'STORE_URL',
      'views across connections need the default connection on PostgreSQL',
    );
  const { mirrors, skipped } = mirrorsIn(settings, home);
  checkViewSchema(schema, mirrors);
  const { createPostgresKysely } = await import('../store/postgres/postgres-kysely.js');
  const db = createPostgresKysely({ connectionString: home.url, poolSize: 1 }) as unknown as Kysely<unknown>;
  try {
    const prints = await columnsFingerprint(db, mirrors);
    const fingerprint = JSON.stringify([
      prints.mirrors,
      [...prints.relations].sort(([a], [b]) => (a < b ? -1 : 1)),
    ]);
    const keeping = options.unlessFingerprint !== undefined;
    const unchanged = { schema, made: false, fingerprint, connections: [], skipped, views: [] };
    if (options.unlessFingerprint === fingerprint) return unchanged;
    const earlier = keeping ? printsOf(options.unlessFingerprint!) : undefined;
    // A connection come or gone (or a process's first making, which also drops the view of a
    // stream no mirror has any more): every view. Otherwise those whose columns changed.
    const changed =
      earlier?.mirrors !== prints.mirrors
        ? relations()
        : relations().filter(
            (relation) => prints.relations.get(relation) !== earlier.relations.get(relation),
          );
    const made = await db.connection().execute(async (session) => {
      // One process at a time makes them (the workers of a fleet keep them; a user may run the command).
      const lock = sql`hashtext(${`tms-sync:union-views:${schema}`})`;
      if (keeping) {
        const { rows } = await sql<{
          locked: boolean;
        }>`select pg_try_advisory_lock(${lock}) as locked`.execute(session);
        if (!rows[0]?.locked) return undefined;
      } else await sql`select pg_advisory_lock(${lock})`.execute(session);
      try {
        return await makeViews(session, schema, mirrors, changed);
      } finally {
        // A connection that failed took its lock with it.
        await sql`select pg_advisory_unlock(${lock})`.execute(session).catch(() => undefined);
      }
    });
    if (made === undefined) return unchanged;
    const views = made;
    return {
      schema,
      made: true,
      fingerprint,
      connections: mirrors.map((mirror) => mirror.connection),
      skipped,
      views: views.map((view) => ({
        name: view.relation,
        connections: view.sources.length,
        columns: sharedColumns(view.sources).length + 1,
      })),
    };
  } finally {
    await db.destroy();
  }
}

/**
 * Each changed relation's view dropped and made again in a transaction of its own: a view made
 * holds a lock on every mirror's table it reads until its transaction ends, and a run adding a
 * column to one of them (a new field) waits for it, and every run on that table behind the run.
 * All 54 in one transaction held them for the whole making (~10 s at 200 connections).
 */
async function makeViews(
  session: Kysely<unknown>,
  schema: string,
  mirrors: readonly Mirror[],
  changed: readonly string[],
) {
  const columns = await readColumns(session, mirrors, changed);
  await sql`create schema if not exists ${sql.id(schema)}`.execute(session);
  const views: Array<{ relation: string; sources: UnionSource[] }> = [];
  for (const relation of changed) {
    const sources = mirrors.flatMap((mirror) => {
      const found = columns.get(`${mirror.schema}.${relation}`);
      return found ? [{ ...mirror, columns: found }] : [];
    });
    await session.transaction().execute(async (trx) => {
      await sql`drop view if exists ${sql.id(schema, relation)}`.execute(trx);
      if (sources.length > 0) await sql.raw(unionViewSql(schema, relation, sources)).execute(trx);
    });
    if (sources.length > 0) views.push({ relation, sources });
  }
  return views;
}

/** A schema name tms-sync takes, and none of a mirror's: the views replace whatever of their names is there. */
function checkViewSchema(schema: string, mirrors: readonly Mirror[]): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new SettingsError(
      '--schema',
      `"${schema}": lower-case letters, digits and "_", at most 63, not starting with a digit`,
    );
  const owner = mirrors.find((mirror) => mirror.schema === schema);
  if (owner)
    throw new SettingsError(
      '--schema',
      `"${schema}" holds connection "${owner.connection}"'s mirror: give the views a schema of their own`,
    );
}

/** The catalogue's tables and live views, the names a union view may take. */
const relations = (): string[] => Object.keys(streams).flatMap((stream) => [stream, liveViewName(stream)]);

function mirrorsIn(settings: Settings, home: Extract<StoreLocation, { kind: 'postgres' }>) {
  const mirrors: Mirror[] = [];
  const skipped: Array<{ connection: string; reason: string }> = [];
  for (const connection of connectionNames(settings)) {
    const shape = connection === defaultConnectionName ? settings : connectionShape(settings, connection);
    const location = storeLocation(shape.storeUrl, shape.storeSchema);
    if (location.kind !== 'postgres') skipped.push({ connection, reason: 'on SQLite' });
    else if (databaseOf(location.url) !== databaseOf(home.url))
      skipped.push({ connection, reason: "in another PostgreSQL database than the default connection's" });
    else mirrors.push({ connection, schema: location.schema ?? 'public' });
  }
  return { mirrors, skipped };
}

/** The server and database of a PostgreSQL URL, without credentials or options. */
function databaseOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname || parsed.searchParams.get('host')}:${parsed.port || '5432'}${parsed.pathname}`;
}

/** The mirrors' schemas, and by relation their columns, summed up. */
interface ColumnPrints {
  readonly mirrors: string;
  readonly relations: ReadonlyMap<string, string>;
}

/**
 * The mirrors' schemas, and by relation their columns summed up in a row of the catalogue each
 * (cheaper than reading them): a relation's sum changes when a connection's table of it appears or
 * a column is added to one.
 */
async function columnsFingerprint(db: Kysely<unknown>, mirrors: readonly Mirror[]): Promise<ColumnPrints> {
  const schemas = mirrors.map((mirror) => mirror.schema);
  const { rows } = await sql<{ relation: string; fingerprint: string }>`
    select c.relname as relation, count(*) || ':' || sum(hashtext(n.nspname || '.' || a.attname || ':' || a.atttypid)) as fingerprint
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname in (${sql.join(schemas)}) and c.relkind in ('r', 'v') and a.attnum > 0 and not a.attisdropped
    group by c.relname`.execute(db);
  return {
    mirrors: schemas.join(','),
    relations: new Map(rows.map((row) => [row.relation, row.fingerprint])),
  };
}

/** The prints of an earlier report's `fingerprint`; none when it is not one (the first making passes ''). */
function printsOf(fingerprint: string): ColumnPrints | undefined {
  try {
    const [mirrors, relations] = JSON.parse(fingerprint) as [unknown, unknown];
    if (typeof mirrors === 'string' && Array.isArray(relations))
      return { mirrors, relations: new Map(relations as Array<[string, string]>) };
  } catch {
    // Not one of ours: every view is made.
  }
  return undefined;
}

/**
 * Every column of the mirrors' given relations, by `schema.relation`, in table order. Read from the
 * catalogue, as the fingerprint is: `information_schema.columns` checks each column's privileges
 * and took 3 s of a PostgreSQL core a making at 200 connections.
 */
async function readColumns(
  db: Kysely<unknown>,
  mirrors: readonly Mirror[],
  relations: readonly string[],
): Promise<Map<string, SourceColumn[]>> {
  const schemas = mirrors.map((mirror) => mirror.schema);
  if (relations.length === 0) return new Map();
  const { rows } = await sql<{ schema: string; relation: string; name: string; type: string }>`
    select n.nspname as schema, c.relname as relation, a.attname as name, format_type(a.atttypid, null) as type
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname in (${sql.join(schemas)}) and c.relname in (${sql.join(relations)})
      and c.relkind in ('r', 'v') and a.attnum > 0 and not a.attisdropped
    order by n.nspname, c.relname, a.attnum`.execute(db);
  const byRelation = new Map<string, SourceColumn[]>();
  for (const row of rows) {
    const key = `${row.schema}.${row.relation}`;
    const columns = byRelation.get(key) ?? [];
    columns.push({ name: row.name, type: row.type });
    byRelation.set(key, columns);
  }
  return byRelation;
}
