/** A source of random choices: seeded for the initial data, the core's `ctx.random` for changes. */
export interface Rng {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
}

/** Wraps any [0, 1) source into the helpers the generators use. */
export function rngFrom(next: () => number): Rng {
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)]!;
    },
    chance: (p) => next() < p,
  };
}

/**
 * A seeded generator (mulberry32). The driver data has its own, so that the initial data depends on
 * the seed alone and not on how often the core drew from `ctx.random` before.
 */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  return rngFrom(() => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  });
}
