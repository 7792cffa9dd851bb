import { type BoundedCache, createBoundedCache } from './bounded-cache.js';
import type { SequenceCounter } from './sequence-counter.js';

/** Flag bits per record: gone (hard-deleted), soft-deleted, and a 3-bit status code above them. */
export const recordFlags = { gone: 1, softDeleted: 2, statusShift: 2, statusMask: 7 << 2 } as const;

export interface RecordTableOptions<T> {
  /** Records generated at start, indices 0..baseCount-1. */
  baseCount: number;
  /** Rebuilds the base state of a record from its index (nothing is stored until it changes). */
  generate(index: number): T;
  baseSequences: Float64Array;
  /** Flags of the base record at `index`. */
  baseFlags(index: number): number;
  counter: SequenceCounter;
  /** Serialized records to keep. */
  jsonCacheSize: number;
}

/**
 * Records of one kind kept compactly: sequences and flags in typed arrays, the state of a record
 * only once it changed (a Map of overrides), serialized JSON in a bounded cache. Indices are in id
 * order and never reused; new records are appended.
 */
export interface RecordTable<T> {
  size(): number;
  sequence(index: number): number;
  flags(index: number): number;
  isGone(index: number): boolean;
  /** Bumps on every change: cached orderings built at another version are stale. */
  version(): number;
  /** Current state (generated or changed), undefined when hard-deleted or out of range. */
  get(index: number): T | undefined;
  /** Applies a change: materializes the state, takes the next sequence, drops the cached JSON. */
  change(index: number, mutate: (state: T) => void, flags?: number): number;
  add(state: T, flags: number): number;
  remove(index: number): void;
  /** The record's JSON from the cache or built by `build` and cached, with its raw fields laid over it. */
  json(index: number, build: (state: T, sequence: number) => string): string;
  /** Lays raw top-level fields over the record's served JSON, valid or not; the state stays intact. */
  setRawFields(index: number, fields: RawFields): void;
  /** Drops every record's raw fields; answers the indices that had some. */
  clearRawFields(): number[];
}

/** Top-level fields served in place of a record's own (PUT /_sim/overrides). */
export type RawFields = Readonly<Record<string, unknown>>;

export function createRecordTable<T>(options: RecordTableOptions<T>): RecordTable<T> {
  let size = options.baseCount;
  let sequences = new Float64Array(Math.max(size, 16));
  sequences.set(options.baseSequences);
  let flagArray = new Uint8Array(sequences.length);
  for (let index = 0; index < size; index++) flagArray[index] = options.baseFlags(index);
  const overrides = new Map<number, T>();
  const cache: BoundedCache<number, string> = createBoundedCache(options.jsonCacheSize);
  const rawFields = new Map<number, RawFields>();
  let version = 0;

  const inRange = (index: number) => Number.isInteger(index) && index >= 0 && index < size;
  const get = (index: number): T | undefined => {
    if (!inRange(index) || flagArray[index]! & recordFlags.gone) return undefined;
    return overrides.get(index) ?? options.generate(index);
  };
  const touch = (index: number) => {
    version += 1;
    cache.delete(index);
    sequences[index] = options.counter.next();
    return sequences[index]!;
  };
  const grow = () => {
    const bigger = new Float64Array(sequences.length * 2);
    bigger.set(sequences);
    sequences = bigger;
    const biggerFlags = new Uint8Array(bigger.length);
    biggerFlags.set(flagArray);
    flagArray = biggerFlags;
  };

  return {
    size: () => size,
    sequence: (index) => sequences[index]!,
    flags: (index) => flagArray[index]!,
    isGone: (index) => !inRange(index) || (flagArray[index]! & recordFlags.gone) !== 0,
    version: () => version,
    get,
    change(index, mutate, flags) {
      const state = get(index);
      if (state === undefined) throw new Error(`no record at index ${index}`);
      overrides.set(index, state);
      mutate(state);
      if (flags !== undefined) flagArray[index] = flags;
      return touch(index);
    },
    add(state, flags) {
      if (size === sequences.length) grow();
      const index = size++;
      overrides.set(index, state);
      flagArray[index] = flags;
      touch(index);
      return index;
    },
    remove(index) {
      flagArray[index] = recordFlags.gone;
      overrides.delete(index);
      rawFields.delete(index);
      cache.delete(index);
      version += 1;
    },
    json(index, build) {
      const cached = cache.get(index);
      if (cached !== undefined) return cached;
      const text = withRawFields(build(get(index)!, sequences[index]!), rawFields.get(index));
      cache.set(index, text);
      return text;
    },
    setRawFields(index, fields) {
      rawFields.set(index, { ...rawFields.get(index), ...fields });
      cache.delete(index);
    },
    clearRawFields() {
      const indices = [...rawFields.keys()];
      rawFields.clear();
      for (const index of indices) cache.delete(index);
      return indices;
    },
  };
}

// Only overridden records pay for the parse; keys keep their place, new ones come last.
function withRawFields(json: string, fields: RawFields | undefined): string {
  return fields === undefined ? json : JSON.stringify({ ...JSON.parse(json), ...fields });
}
