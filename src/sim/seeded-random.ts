/**
 * Deterministic randomness. Every generated record is derived from `hash32(seed, tag, index)`, so the
 * simulator can rebuild any record from its index instead of keeping a million objects in memory.
 */

/** Mixes up to three integers into a well-spread unsigned 32-bit value (murmur3's finalizer per step). */
export function hash32(a: number, b = 0, c = 0): number {
  let h = mix(Math.imul(a | 0, 0x9e3779b1) ^ 0x85ebca6b);
  h = mix(h ^ Math.imul(b | 0, 0xcc9e2d51));
  h = mix(h ^ Math.imul(c | 0, 0x1b873593));
  return h >>> 0;
}

function mix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** A small fast PRNG (mulberry32): numbers in [0, 1), the same sequence for the same seed. */
export function createRandom(seed: number): () => number {
  return createPicker(seed).next;
}

/**
 * Helpers over one reseedable random source, so generators read as data. A generator keeps one
 * picker and reseeds it per record: no allocation per record on the hot path of a listing.
 */
export interface Picker {
  /** Restarts the sequence from `seed`. */
  reseed(seed: number): Picker;
  /** Number in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
}

export function createPicker(seed = 0): Picker {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const picker: Picker = {
    reseed(value) {
      state = value >>> 0;
      return picker;
    },
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (values) => values[Math.floor(next() * values.length)]!,
    chance: (p) => next() < p,
  };
  return picker;
}

/** Tags that keep the random streams of the different generators apart. */
export const randomTags = {
  invoice: 1,
  client: 2,
  faults: 4,
  context: 5,
  changes: 6,
} as const;
