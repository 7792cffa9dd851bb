import type { ColumnType } from '../../config/stream-definition.js';

/** Reads a dotted path out of a record; undefined when any step is missing or not an object. */
export type PathGetter = (record: unknown) => unknown;

/** A typed column's value, dialect-neutral: text, number, boolean, or null. */
export type ColumnValue = string | number | boolean | null;

/** Compiles a dotted path once, so a page of records pays only the property reads. */
export function compilePath(path: string): PathGetter {
  const steps = path.split('.');
  return (record) => {
    let value = record;
    for (const step of steps) {
      if (value === null || typeof value !== 'object') return undefined;
      value = (value as Record<string, unknown>)[step];
    }
    return value;
  };
}

const int32 = { min: -2147483648, max: 2147483647 };
const canonicalUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const isoDate = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])/;

/**
 * Converts a raw record value to a column value, or null when it does not fit the type: objects
 * and arrays are never copied into a typed column, and a value that would make the database
 * refuse the whole page (an integer out of range, an impossible date) becomes null.
 */
export const toColumnValue: Readonly<Record<ColumnType, (value: unknown) => ColumnValue>> = {
  text: (value) =>
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : null,
  integer: (value) =>
    Number.isInteger(value) && (value as number) >= int32.min && (value as number) <= int32.max
      ? (value as number)
      : null,
  bigint: (value) => (Number.isSafeInteger(value) ? (value as number) : null),
  real: (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null),
  boolean: (value) => (typeof value === 'boolean' ? value : null),
  timestamp: toTimestamp,
  date: toDate,
};

/** Timestamps are stored as UTC ISO 8601, so that text comparison in SQLite orders them correctly. */
function toTimestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return null;
  // The usual case, kept without re-formatting (the hot path); V8 rolls impossible days
  // (Feb 30) over instead of refusing them, so only days up to 28 skip the round trip.
  if (canonicalUtc.test(value) && Number(value.slice(8, 10)) <= 28) return value;
  return new Date(time).toISOString();
}

/** The calendar date a value names (its first 10 characters), if that date exists. */
function toDate(value: unknown): string | null {
  if (typeof value !== 'string' || !isoDate.test(value)) return null;
  const day = value.length === 10 ? value : value.slice(0, 10);
  const date = Number(day.slice(8));
  if (date <= 28) return day;
  const check = new Date(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, date));
  return check.getUTCDate() === date ? day : null;
}
