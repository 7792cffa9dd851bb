import type { SimVariant } from '../sim-options.js';

/** The kinds of string ids the Driver API data hands out; each has its own number range. */
export type IdKind =
  | 'task'
  | 'good'
  | 'order'
  | 'client'
  | 'message'
  | 'file'
  | 'vehicle'
  | 'packaging'
  | 'questionnaire';

const firstNumber: Record<IdKind, number> = {
  task: 100_001,
  good: 500_001,
  order: 700_001,
  client: 3_001,
  message: 900_001,
  file: 60_001,
  vehicle: 201,
  packaging: 11,
  questionnaire: 41,
};

/** Hands out unique ids per kind, shaped by the `idStyle` variant. */
export interface DriverIds {
  next(kind: IdKind): string;
  /** The next ride id: int32, because tasks reference `rideId` as an integer. */
  nextRide(): number;
}

/**
 * `plain` ids are digit strings. `unsafe` ids keep the number but add every character a client must
 * percent-encode in a path (`/`, space, `#`, `?`, `%`); the literal `%25` catches double decoding.
 * Commas never occur: `ids` parameters and headers are comma-separated.
 */
export function createDriverIds(style: SimVariant['idStyle']): DriverIds {
  const counters = new Map<IdKind, number>();
  let ride = 40_000;
  return {
    next(kind) {
      const n = counters.get(kind) ?? firstNumber[kind];
      counters.set(kind, n + 1);
      return style === 'unsafe' ? `${kind[0]!.toUpperCase()}/${n} #?%25` : String(n);
    },
    nextRide: () => ++ride,
  };
}
