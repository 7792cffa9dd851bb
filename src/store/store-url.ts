import { redactUrl } from '../secrets/url-credentials.js';
import { StoreUrlError } from './errors.js';

/** Where the store lives, parsed from STORE_URL. */
export type StoreLocation =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string };

const expected =
  'expected "sqlite:PATH" (e.g. sqlite:./data/tms.sqlite) or "postgres://user@host:5432/database"';

/**
 * Parses STORE_URL. Errors name the setting and show the value with any password blanked, as
 * the value may hold a secret (README.md, Configuration).
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
    return { kind: 'postgres', url: text };
  }
  throw new StoreUrlError(`STORE_URL "${redactUrl(text)}" is not supported: ${expected}`);
}
