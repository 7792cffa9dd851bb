import { createHash } from 'node:crypto';
import type { StoreRecord } from './store-types.js';

/**
 * A fingerprint of one complete pass over a scope: the scope, and every record's key, sequence and
 * data as received, in key order (the parts of a pass arrive in any order). These are what the
 * page upsert compares (upsert-sql.ts, `conflictClause`): over rows a pass of equal digest left,
 * the same pass again would change no row.
 */
export function passDigest(scope: string | undefined, records: readonly StoreRecord[]): string {
  const sorted = [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // One text for the whole pass: one stringify and one hash update, not one per record.
  const text = JSON.stringify([
    scope ?? null,
    sorted.map((record) => [record.key, record.sequence, record.data]),
  ]);
  return createHash('sha256').update(text).digest('base64url');
}
