import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStoreUrl, StoreUrlError } from '../../config/store-url.js';
import { openStore } from '../../src/store/open-store.js';
import { StoreConnectionError } from '../../src/store/store-errors.js';

describe('STORE_URL', () => {
  it('parses sqlite paths and postgres URLs', () => {
    expect(parseStoreUrl('sqlite:./data/tms.sqlite')).toEqual({ kind: 'sqlite', path: './data/tms.sqlite' });
    expect(parseStoreUrl('sqlite:///var/lib/tms.sqlite')).toEqual({
      kind: 'sqlite',
      path: '/var/lib/tms.sqlite',
    });
    expect(parseStoreUrl('postgresql://u:p@db:5432/w')).toEqual({
      kind: 'postgres',
      url: 'postgresql://u:p@db:5432/w',
    });
  });

  it.each([
    [undefined, /STORE_URL is empty/],
    ['sqlite:', /STORE_URL "sqlite:" has no file path/],
    [
      'mysql://u:secret@h/db',
      /STORE_URL "mysql:\/\/u:\*\*\*@h\/db" is not supported: expected "sqlite:PATH"/,
    ],
    ['./data/tms.sqlite', /STORE_URL ".\/data\/tms.sqlite" is not supported/],
    ['postgres://u:secret@:99999/db', /STORE_URL "postgres:\/\/u:\*\*\*@:99999\/db" is not a valid URL/],
  ])('STORE_URL errors are clear: %s', (value, message) => {
    expect(() => parseStoreUrl(value)).toThrow(StoreUrlError);
    expect(() => parseStoreUrl(value)).toThrow(message);
    expect(() => parseStoreUrl(value)).not.toThrow(/secret/);
  });

  it('names STORE_URL, without the password, when the database cannot be reached', async () => {
    const opening = openStore('postgres://someone:secret@127.0.0.1:1/nowhere');
    await expect(opening).rejects.toBeInstanceOf(StoreConnectionError);
    await expect(opening).rejects.toThrow(/STORE_URL=postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nowhere/);
    await expect(opening).rejects.not.toThrow(/secret/);
  });

  it('names STORE_URL when the SQLite file cannot be created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tms-store-url-'));
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    try {
      const opening = openStore(`sqlite:${file}/x.sqlite`);
      await expect(opening).rejects.toBeInstanceOf(StoreConnectionError);
      await expect(opening).rejects.toThrow(`STORE_URL=sqlite:${file}/x.sqlite`);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
