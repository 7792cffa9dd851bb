import type { StreamDefinition } from '../../config/stream-definition.js';
import type { RejectedRecord as ClientReject } from '../client/index.js';
import { compilePath } from '../store/column-values.js';
import type { RejectedRecord } from '../store/store.js';

/** Reads a stream's record key as the store does (text), or null when the record has none. */
export function keyReader(definition: StreamDefinition): (record: unknown) => string | null {
  const get = compilePath(definition.key);
  return (record) => {
    const key = get(record);
    if (typeof key === 'string' && key !== '') return key;
    if (typeof key === 'number' && Number.isFinite(key)) return String(key);
    return null;
  };
}

/** Client rejects as the store keeps them: the key when one can be read, the validation issues as reason. */
export function toStoreRejects(
  rejected: readonly ClientReject[],
  keyOf: (record: unknown) => string | null,
): RejectedRecord[] {
  return rejected.map(({ record, issues }) => ({
    key: keyOf(record),
    reason: issues.map((issue) => `${issue.path || '/'}: ${issue.message}`).join('; ') || 'invalid record',
    data: record,
  }));
}

/** Reads the sequence field a deployment names (TMS_SEQUENCE_FIELD); anything but a number is none. */
export function sequenceReader(field: string): (record: unknown) => number | null {
  return (record) => {
    const value = (record as Record<string, unknown> | null)?.[field];
    return typeof value === 'number' ? value : null;
  };
}

/** Every text or number value at a dotted path, stepping through arrays (`goods.id` of a task). */
export function valuesAtPath(path: string): (record: unknown) => string[] {
  const steps = path.split('.');
  const walk = (value: unknown, step: number, out: string[]): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item, step, out);
    } else if (step === steps.length) {
      if (typeof value === 'string' && value !== '') out.push(value);
      else if (typeof value === 'number' && Number.isFinite(value)) out.push(String(value));
    } else if (value !== null && typeof value === 'object') {
      walk((value as Record<string, unknown>)[steps[step]!], step + 1, out);
    }
  };
  return (record) => {
    const out: string[] = [];
    walk(record, 0, out);
    return out;
  };
}
