import { redactUrl } from '../src/secrets/url-credentials.js';
import { permanent, TmsSyncError } from '../src/tms-sync-error.js';

/** STORE_URL is missing, malformed or names an unsupported database. Fix the configuration. */
export class StoreUrlError extends TmsSyncError {
  readonly code = 'STORE_URL_INVALID';
  readonly retry = permanent;
  override get preventsStart(): boolean {
    return true;
  }
}

/** Where the store lives, parsed from STORE_URL (and the schema, for PostgreSQL). */
export type StoreLocation =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema?: string | undefined };

const expected =
  'expected "sqlite:PATH" (e.g. sqlite:./data/tms.sqlite) or "postgres://user@host:5432/database"';

/** A PostgreSQL schema name as tms-sync takes it: lower case, so it needs no quoting anywhere. */
const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Parses STORE_URL. Errors name the setting and show the value with any password blanked, as
 * the value may hold a secret (README.md, Configuration). A PostgreSQL URL's `?schema=` is taken
 * out of it (the driver would not know it) into `schema`.
 */
export function parseStoreUrl(value: string | undefined): StoreLocation {
  const text = value?.trim() ?? '';
  if (text === '') throw new StoreUrlError(`STORE_URL is empty: ${expected}`);
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new StoreUrlError(`STORE_URL "${text}" has no file path: ${expected}`);
    return { kind: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new StoreUrlError(`STORE_URL "${redactUrl(text)}" is not a valid URL: ${expected}`);
    }
    if (url.hostname === '' && !url.searchParams.has('host')) {
      throw new StoreUrlError(`STORE_URL "${redactUrl(text)}" names no host: ${expected}`);
    }
    const schema = url.searchParams.get('schema') ?? undefined;
    if (schema === undefined) return { kind: 'postgres', url: text };
    url.searchParams.delete('schema');
    return { kind: 'postgres', url: url.toString(), schema: checkSchema('STORE_URL ?schema=', schema) };
  }
  throw new StoreUrlError(`STORE_URL "${redactUrl(text)}" is not supported: ${expected}`);
}

/**
 * STORE_URL with the schema of the settings (STORE_SCHEMA) or the store's caller: the same as the
 * URL's `?schema=` or none of it; a schema for a SQLite store is refused (its file is its own).
 */
export function storeLocation(url: string | undefined, schema: string | undefined): StoreLocation {
  const location = parseStoreUrl(url);
  if (schema === undefined) return location;
  checkSchema('STORE_SCHEMA', schema);
  if (location.kind === 'sqlite')
    throw new StoreUrlError(
      'STORE_SCHEMA applies to a PostgreSQL store only: a SQLite store is its own file (give each mirror its own path)',
    );
  if (location.schema !== undefined && location.schema !== schema)
    throw new StoreUrlError(
      `STORE_SCHEMA "${schema}" and STORE_URL's ?schema=${location.schema} differ: give the schema once`,
    );
  return { ...location, schema };
}

function checkSchema(setting: string, schema: string): string {
  if (!schemaName.test(schema))
    throw new StoreUrlError(
      `${setting} "${schema}" is not a schema name tms-sync takes: lower-case letters, digits and "_", at most 63, not starting with a digit`,
    );
  return schema;
}
