import type { ColumnType } from '../../../config/stream-definition.js';
import { toCents } from './cents.js';

/** A typed column's value, dialect-neutral: text, number, boolean, or null. */
export type ColumnValue = string | number | boolean | null;

/** What a converter answers for a value its column's type cannot hold: the column gets NULL, drift is counted. */
export const misfit: unique symbol = Symbol('misfit');

/** Converts a record's value for a column: the value, null for null/absent, or `misfit`. */
export type ColumnConverter = (value: unknown) => ColumnValue | typeof misfit;

const int32 = { min: -2147483648, max: 2147483647 };
const canonicalUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const isoDate = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
/** An ISO 8601 date-time with a zone: without one, the instant it names is unknown. */
export const zonedDateTime =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;
/** A plain decimal, as a number column takes it from a string (`"12.50"`), exactly. */
const decimalText = /^-?\d{1,30}(\.\d{1,30})?$/;

/**
 * The converters per column type. A value of another type is a misfit, never an error: objects and
 * arrays never fit a column, and neither does a value that would make the database refuse the whole
 * page (an integer out of range, an impossible date, a string holding U+0000). A number column takes numbers and decimal
 * strings (kept as text, so PostgreSQL's numeric gets every digit); a text column takes any scalar.
 */
export const columnConverters: Readonly<Record<ColumnType, ColumnConverter>> = {
  text: (value) => {
    if (value === null || value === undefined) return null;
    // PostgreSQL's text cannot hold U+0000: NULL on both dialects alike, the value whole in `data`.
    if (typeof value === 'string') return value.includes('\u0000') ? misfit : value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return misfit;
  },
  integer: (value) => {
    if (value === null || value === undefined) return null;
    const ok = Number.isInteger(value) && (value as number) >= int32.min && (value as number) <= int32.max;
    return ok ? (value as number) : misfit;
  },
  bigint: (value) => {
    if (value === null || value === undefined) return null;
    return Number.isSafeInteger(value) ? (value as number) : misfit;
  },
  real: (value) => {
    if (value === null || value === undefined) return null;
    return typeof value === 'number' && Number.isFinite(value) ? value : misfit;
  },
  number: (value) => {
    if (value === null || value === undefined) return null;
    if (typeof value === 'number') return Number.isFinite(value) ? value : misfit;
    return typeof value === 'string' && decimalText.test(value) ? value : misfit;
  },
  boolean: (value) => {
    if (value === null || value === undefined) return null;
    return typeof value === 'boolean' ? value : misfit;
  },
  timestamp: (value) => (value === null || value === undefined ? null : (toTimestamp(value) ?? misfit)),
  date: (value) => (value === null || value === undefined ? null : (toDate(value) ?? misfit)),
  // Whatever its number column does not take is that column's drift, not this one's too.
  cents: (value) => {
    if (typeof value === 'number') return Number.isFinite(value) ? (toCents(value) ?? misfit) : null;
    if (typeof value === 'string' && decimalText.test(value)) return toCents(value) ?? misfit;
    return null;
  },
};

/** Timestamps are stored as UTC ISO 8601, so that text comparison in SQLite orders them correctly. */
function toTimestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  // The usual case, kept without re-formatting (the hot path); V8 rolls impossible days
  // (Feb 30) over instead of refusing them, so only days up to 28 skip the round trip.
  if (canonicalUtc.test(value) && dayOf(value) <= 28) return value;
  if (!zonedDateTime.test(value)) return null;
  const time = Date.parse(value.replace(' ', 'T'));
  if (Number.isNaN(time)) return null;
  const iso = new Date(time).toISOString();
  // A day the calendar does not have (Feb 30) must not roll over into another.
  return dayOf(value) <= 28 || sameDayAfterZone(value, time) ? iso : null;
}

function sameDayAfterZone(value: string, time: number): boolean {
  const offset = value.match(/([+-])(\d{2}):?(\d{2})?$/);
  const shift = offset
    ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3] ?? 0)) * 60_000
    : 0;
  return new Date(time + shift).getUTCDate() === dayOf(value);
}

/** The day of a text that starts `YYYY-MM-DD` (checked before), read without a substring per value. */
function dayOf(value: string): number {
  return (value.charCodeAt(8) - 48) * 10 + value.charCodeAt(9) - 48;
}

/** A `YYYY-MM-DD` calendar date, if that day exists. */
function toDate(value: unknown): string | null {
  if (typeof value !== 'string' || !isoDate.test(value)) return null;
  const day = dayOf(value);
  if (day <= 28) return value;
  const check = new Date(Date.UTC(Number(value.slice(0, 4)), Number(value.slice(5, 7)) - 1, day));
  return check.getUTCDate() === day ? value : null;
}
