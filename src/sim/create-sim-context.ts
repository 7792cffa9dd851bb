import type { AccessGuard } from './auth/access-guard.js';
import { createRandom, hash32, randomTags } from './seeded-random.js';
import type { SimContext } from './sim-context.js';
import type { SimOptions } from './sim-options.js';

/** The SimContext handed to the Driver API: options, the clock, seeded randomness and the driver auth check. */
export function createSimContext(options: SimOptions, guard: AccessGuard): SimContext {
  return {
    options,
    now: options.now,
    random: createRandom(hash32(options.seed, randomTags.context)),
    authenticateDriver: guard.authenticateDriver,
  };
}
