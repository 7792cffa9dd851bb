import type { SimOptions } from '../sim-options.js';

/** The header naming the account an admin request is for (1..N); the first when absent. */
export const accountHeader = 'x-sim-account';

/**
 * The options of account `index` (1-based) of a simulator serving `options.accounts`: its own
 * seeded data and API token, everything else as given (sizes, faults, variant, clock).
 */
export function accountOptions(options: SimOptions, index: number): SimOptions {
  return {
    ...options,
    accounts: 1,
    seed: options.seed + index - 1,
    apiToken: accountToken(options.apiToken, index),
  };
}

/** The API token of account `index`: `<apiToken>-<index>`. */
export function accountToken(apiToken: string, index: number): string {
  return `${apiToken}-${index}`;
}
