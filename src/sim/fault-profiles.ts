import type { FaultProfileName, FaultRates } from './sim-options.js';

const none: FaultRates = {
  rateLimited: 0,
  serverError: 0,
  reset: 0,
  truncate: 0,
  stall: 0,
  lostResponse: 0,
  latencyMs: 0,
  latencyJitterMs: 0,
  answerLatencyMs: 0,
  stallMs: 30_000,
  retryAfterSeconds: 1,
};

/**
 * The named fault profiles (docs/simulator.md lists them). Rates are per API request; one request
 * gets at most one fault, latency comes on top.
 */
export const faultProfiles: Readonly<Record<FaultProfileName, Readonly<FaultRates>>> = {
  none,
  flaky: { ...none, rateLimited: 0.03, serverError: 0.05 },
  hostile: {
    ...none,
    rateLimited: 0.04,
    serverError: 0.06,
    reset: 0.03,
    truncate: 0.03,
    stall: 0.02,
    stallMs: 5_000,
    latencyMs: 5,
  },
  slow: { ...none, latencyMs: 250 },
  throttled: { ...none, rateLimited: 0.3, retryAfterSeconds: 1 },
  // Writes applied whose answers are lost (a reset after the commit, a proxy's 502), among the
  // usual faults: what write-back must survive without delivering a command twice.
  lossy: {
    ...none,
    lostResponse: 0.1,
    rateLimited: 0.03,
    serverError: 0.05,
    reset: 0.03,
  },
  // A TMS under load that still answers: a third of all requests (the login too) fail with faults
  // a client must retry, answers take 30-230 ms.
  harsh: {
    ...none,
    rateLimited: 0.1,
    retryAfterSeconds: 2,
    serverError: 0.15,
    reset: 0.05,
    latencyMs: 30,
    latencyJitterMs: 200,
  },
};

export const faultProfileNames = Object.keys(faultProfiles) as FaultProfileName[];

const probabilityKeys = ['rateLimited', 'serverError', 'reset', 'truncate', 'stall', 'lostResponse'] as const;
const durationKeys = [
  'latencyMs',
  'latencyJitterMs',
  'answerLatencyMs',
  'stallMs',
  'retryAfterSeconds',
] as const;

/**
 * Turns a profile name or partial rates (missing rates are 0, durations take the defaults) into
 * complete rates; returns an error message instead when something is out of range.
 */
export function resolveFaultRates(faults: unknown): FaultRates | string {
  if (typeof faults === 'string') {
    const profile = faultProfiles[faults as FaultProfileName];
    return profile ? { ...profile } : `unknown profile "${faults}" (one of ${faultProfileNames.join(', ')})`;
  }
  if (typeof faults !== 'object' || faults === null || Array.isArray(faults)) {
    return 'must be a profile name or an object of rates';
  }
  const rates: FaultRates = { ...none };
  for (const [key, value] of Object.entries(faults)) {
    const problem = rateProblem(key, value);
    if (problem) return problem;
    rates[key as keyof FaultRates] = value as number;
  }
  const total = probabilityKeys.reduce((sum, key) => sum + rates[key], 0);
  return total > 1 ? `the fault probabilities add up to ${total}, more than 1` : rates;
}

function rateProblem(key: string, value: unknown): string | undefined {
  const isNumber = typeof value === 'number' && Number.isFinite(value);
  if ((probabilityKeys as readonly string[]).includes(key)) {
    return isNumber && value >= 0 && value <= 1 ? undefined : `${key} must be a number from 0 to 1`;
  }
  if ((durationKeys as readonly string[]).includes(key)) {
    return isNumber && value >= 0 ? undefined : `${key} must be a number >= 0`;
  }
  return `unknown rate "${key}" (one of ${[...probabilityKeys, ...durationKeys].join(', ')})`;
}
