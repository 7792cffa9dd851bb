import { hash32 } from '../seeded-random.js';

/**
 * The one global, monotonic sequence source: every change of any record takes the next value.
 * Base sequences of the generated data sit below `start`, in ranges handed out by `reserve`.
 */
export interface SequenceCounter {
  /** The highest sequence handed out so far (the snapshot a `since` cycle reports as maxSequence). */
  current(): number;
  next(): number;
}

/** Gap between neighbouring base sequences: they are not dense. */
export const sequenceStride = 3;

/** Where sequences start: near 1,000, or just below 2^53 with leave for 2^32 changes. */
export function firstSequence(largeSequences: boolean): number {
  return largeSequences ? Number.MAX_SAFE_INTEGER - 2 ** 32 : 1000;
}

export function createSequenceCounter(start: number): SequenceCounter {
  let value = start;
  return {
    current: () => value,
    next() {
      if (value >= Number.MAX_SAFE_INTEGER) throw new Error('sequence counter exhausted (2^53)');
      value += 1;
      return value;
    },
  };
}

/**
 * Base sequences of `count` records from `start`: a permutation of the indices times the stride
 * plus a jitter, so sequences neither grow with the id nor are dense. Unique within the range
 * [start, start + count * stride).
 */
export function baseSequences(count: number, start: number, seed: number): Float64Array {
  const sequences = new Float64Array(count);
  if (count === 0) return sequences;
  const step = coprimeStep(count, seed);
  const offset = hash32(seed, count) % Math.max(count, 1);
  for (let index = 0; index < count; index++) {
    const rank = (index * step + offset) % count;
    sequences[index] = start + rank * sequenceStride + ((index * 7 + seed) % sequenceStride);
  }
  return sequences;
}

function coprimeStep(count: number, seed: number): number {
  let step = Math.max(1, Math.floor(count * 0.618) + (seed % 7));
  while (gcd(step, count) !== 1) step += 1;
  return step;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
