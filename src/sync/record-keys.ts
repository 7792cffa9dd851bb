import type { RecordKey, StreamDefinition } from '../../config/stream-definition.js';
import type { JsonObject } from '../../schemas/json-object.js';
import { jsonTypeOf } from '../../schemas/json-object.js';
import type { StoreRecord } from '../store/store.js';
import { keyText } from '../store/values-at-path.js';
import { RecordKeyError } from './sync-errors.js';

/** Where a list of records came from, for the error that names a record without a key. */
export interface RecordOrigin {
  readonly stream: string;
  readonly partition: string;
  /** `page 3`, `invoice 0000000042`, ... */
  readonly where: string;
  /** The identity of a single record (`fromRequest` keys): the operator, the order asked for. */
  readonly requested?: string;
}

/**
 * The records of one complete list or page, ready for the store: each with its key (text, as the
 * `id` column holds it) and its sequence. A record the stream needs a key field for and that has
 * none fails the whole list with RecordKeyError: nothing of it is stored (docs/records.md).
 */
export function keyedRecords(
  definition: Pick<StreamDefinition, 'key'>,
  records: readonly JsonObject[],
  origin: RecordOrigin,
  sequenceOf: (record: JsonObject) => number | null,
): StoreRecord[] {
  const keyOf = keyReader(definition.key);
  return records.map((data, index) => {
    const key = keyOf(data) ?? fallbackKey(definition.key, index, origin);
    if (key === null) {
      throw new RecordKeyError(origin, index + 1, records.length, missingKeyReason(definition.key, data));
    }
    return { key, sequence: sequenceOf(data), data };
  });
}

/** Reads a key field as the store keeps it: a non-empty string, or a safe integer as text; else null. */
export function keyReader(key: RecordKey): (record: unknown) => string | null {
  if ('fromRequest' in key) return () => null;
  const get = pathReader(key.field);
  return (record) => keyText(get(record));
}

/** Reads the sequence field a deployment names (TMS_SEQUENCE_FIELD); a non-integer is none (last write wins). */
export function sequenceReader(field: string): (record: JsonObject) => number | null {
  return (record) => {
    const value = record[field];
    if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
    if (typeof value === 'string' && /^\d{1,16}$/.test(value)) {
      const number = Number(value);
      return Number.isSafeInteger(number) ? number : null;
    }
    return null;
  };
}

function fallbackKey(key: RecordKey, index: number, origin: RecordOrigin): string | null {
  if ('fromRequest' in key) return origin.requested ?? 'current';
  return key.orPosition ? `#${index + 1}` : null;
}

function pathReader(path: string): (record: unknown) => unknown {
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

function missingKeyReason(key: RecordKey, record: JsonObject): string {
  const field = 'field' in key ? key.field : '(request)';
  const fields = Object.keys(record).slice(0, 12).join(', ');
  return `${describeKeyValue(field, pathReader(field)(record))} (its fields: ${fields || 'none'})`;
}

function describeKeyValue(field: string, value: unknown): string {
  if (value === undefined) return `no '${field}'`;
  if (value === '') return `'${field}' is an empty string`;
  if (typeof value === 'string') return `'${field}' holds the character U+0000, which no key column can hold`;
  if (typeof value === 'number') return `'${field}' is ${value}, not a safe integer`;
  return `'${field}' is ${jsonTypeOf(value)}`;
}
