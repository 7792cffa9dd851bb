import type { ColumnType } from '../../config/stream-definition.js';

/** A stored timestamp (ISO text in SQLite, Date from pg) as a Date, or null. */
export function toStoredDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(String(value));
}

/** A typed column as read back, in the same form on both dialects (booleans, ISO timestamps, date text). */
export function decodeColumn(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') return value === true || value === 1;
  // pg answers numeric as text (every digit); both dialects read it back as a number here.
  if (type === 'number') return Number(value);
  if (type === 'timestamp') return toStoredDate(value)!.toISOString();
  return value;
}

/** Text of ours (an error line, which may quote the TMS) as PostgreSQL's text can hold it: U+0000 shown escaped. */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '\\u0000');
}
