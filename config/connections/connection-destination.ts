import { dirname, join, resolve } from 'node:path';
import type { ConnectionFile } from '../connection-file.js';
import type { Settings } from '../settings.js';
import { parseStoreUrl, type StoreLocation, storeLocation } from '../store-url.js';

/** Where a connection is mirrored: the two settings the store is opened with. */
export type Destination = Pick<Settings, 'storeUrl' | 'storeSchema'>;

/**
 * A connection's destination: its own `storeUrl` (and `storeSchema`) when it sets them, else the
 * default connection's store with a place of its own: on PostgreSQL the same database, schema
 * `tms_<name>` (or its `storeSchema`); on SQLite the file `<name>.sqlite` beside the default's.
 */
export function destinationOf(name: string, entry: ConnectionFile, defaults: Destination): Destination {
  if (entry.storeUrl !== undefined) return { storeUrl: entry.storeUrl, storeSchema: entry.storeSchema };
  const location = parseStoreUrl(defaults.storeUrl);
  if (location.kind === 'sqlite') {
    return {
      storeUrl: `sqlite:${join(dirname(location.path), `${name}.sqlite`)}`,
      storeSchema: entry.storeSchema,
    };
  }
  return { storeUrl: location.url, storeSchema: entry.storeSchema ?? `tms_${name}` };
}

/**
 * What makes two destinations the same place: the SQLite file's absolute path, or the PostgreSQL
 * server, database and schema (`public` when none is named). Credentials and options do not count.
 */
export function destinationIdentity(destination: Destination): string {
  return identityOf(storeLocation(destination.storeUrl, destination.storeSchema));
}

function identityOf(location: StoreLocation): string {
  if (location.kind === 'sqlite') return `sqlite:${resolve(location.path)}`;
  const url = new URL(location.url);
  const host = url.hostname || (url.searchParams.get('host') ?? '');
  return `postgres://${host}:${url.port || '5432'}${url.pathname}#${location.schema ?? 'public'}`;
}

/** A destination for people: the SQLite path, or the PostgreSQL server and database with the schema; never a password. */
export function describeDestination(destination: Destination): string {
  const location = storeLocation(destination.storeUrl, destination.storeSchema);
  if (location.kind === 'sqlite') return `sqlite:${location.path}`;
  const url = new URL(location.url);
  const host = url.hostname || (url.searchParams.get('host') ?? '');
  return `postgres://${host}${url.port ? `:${url.port}` : ''}${url.pathname} schema ${location.schema ?? 'public'}`;
}
