import { isJsonObject } from '../../schemas/json-object.js';

/**
 * How a record the TMS lists compares with what a command wrote, field by field, leniently: the
 * TMS may answer `"12.50"` for `12.5`, `2026-11-20T00:00:00Z` for `2026-11-20`, or upper-case an
 * e-mail address. A field the record lacks (absent, null, an object where a value was sent) is
 * `unknown`, never a match and never a difference: the record might still be the command's own.
 */
export type FieldComparison = 'same' | 'different' | 'unknown';

/** The value at a dotted path (`address.postalCode`); undefined when a step is missing. */
export function valueAt(record: unknown, path: string): unknown {
  let value: unknown = record;
  for (const step of path.split('.')) {
    if (!isJsonObject(value)) return undefined;
    value = value[step];
  }
  return value;
}

/** A value a match key can hold: a non-empty string, a finite number or a boolean. */
export function isMatchValue(value: unknown): value is string | number | boolean {
  if (typeof value === 'string') return value.trim() !== '';
  return typeof value === 'number' ? Number.isFinite(value) : typeof value === 'boolean';
}

function compareValue(sent: unknown, received: unknown): FieldComparison {
  if (received === undefined || received === null || typeof received === 'object') return 'unknown';
  // Numbers compare as numbers when one side is one ("12.50" and 12.5); two strings stay strings
  // ("00042" is not "42").
  if (typeof sent === 'number' || typeof received === 'number') {
    const a = asNumber(sent);
    const b = asNumber(received);
    if (a !== undefined && b !== undefined)
      return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a)) ? 'same' : 'different';
  }
  if (typeof sent === 'boolean') return asBoolean(received) === sent ? 'same' : 'different';
  const a = String(sent).trim().toLowerCase();
  const b = String(received).trim().toLowerCase();
  if (a === b) return 'same';
  // A calendar date answered as a date-time at its midnight (or any time of that day).
  return /^\d{4}-\d{2}-\d{2}$/.test(a) && b.startsWith(`${a}t`) ? 'same' : 'different';
}

/** Compares a record with the command's body on every match field: all same, any different, or unknown. */
export function compareRecord(body: unknown, record: unknown, fields: readonly string[]): FieldComparison {
  let result: FieldComparison = 'same';
  for (const field of fields) {
    const comparison = compareValue(valueAt(body, field), valueAt(record, field));
    if (comparison === 'different') return 'different';
    if (comparison === 'unknown') result = 'unknown';
  }
  return result;
}

/**
 * Whether a record shows a merge-patch applied: every field the patch sets has that value (objects
 * compared field by field, arrays element by element), every field it nulls is absent or null.
 * `unknown` when the record lacks a field the patch set to a value.
 */
export function comparePatch(patch: unknown, record: unknown): FieldComparison {
  if (patch === null) return record === undefined || record === null ? 'same' : 'different';
  if (Array.isArray(patch)) {
    if (!Array.isArray(record)) return record === undefined || record === null ? 'unknown' : 'different';
    if (record.length !== patch.length) return 'different';
    return combine(patch.map((item, index) => comparePatch(item, record[index])));
  }
  if (isJsonObject(patch)) {
    if (!isJsonObject(record)) return record === undefined || record === null ? 'unknown' : 'different';
    return combine(Object.entries(patch).map(([key, value]) => comparePatch(value, record[key])));
  }
  return compareValue(patch, record);
}

function combine(comparisons: readonly FieldComparison[]): FieldComparison {
  if (comparisons.includes('different')) return 'different';
  return comparisons.includes('unknown') ? 'unknown' : 'same';
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !/^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const text = String(value).trim().toLowerCase();
  if (['true', '1', 'yes'].includes(text)) return true;
  return ['false', '0', 'no'].includes(text) ? false : undefined;
}
