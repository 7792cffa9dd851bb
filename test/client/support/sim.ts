import { createSimAdminClient, type MintTokenRequest } from '../../../src/sim/sim-admin-client.js';
import type { FaultProfileName, FaultRates } from '../../../src/sim/sim-options.js';
import { startSim } from '../../../src/sim/start-sim.js';
import type { StreamTruth } from '../../../src/sim/stream-truth.js';

export type StartedSim = Awaited<ReturnType<typeof startSim>>;
export type SimStartOptions = Parameters<typeof startSim>[0];

/** A small, fast simulator on port 0 for client tests. */
export function startTestSim(options: SimStartOptions = {}): Promise<StartedSim> {
  return startSim({ invoices: 120, clients: 30, operators: 2, host: '127.0.0.1', port: 0, ...options });
}

const adminOf = (url: string) => createSimAdminClient({ url });

/** Sets the fault profile (PUT /_sim/faults). */
export const setFaults = (url: string, faults: FaultProfileName | Partial<FaultRates>) =>
  adminOf(url).setFaults(faults);

/** The whole truth (GET /_sim/truth). */
export const truth = (url: string): Promise<StreamTruth> => adminOf(url).truth();

/** Mints an access or driver token (POST /_sim/tokens). */
export const mintToken = async (url: string, spec: MintTokenRequest): Promise<string> =>
  (await adminOf(url).mintToken(spec)).access;

/** Collects every item of a page iterator. */
export async function allItems<T>(pages: AsyncIterable<{ items: T[] }>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages) items.push(...page.items);
  return items;
}

/** Short back-off so the suite stays fast. */
export const fastRetry = { attempts: 4, minDelayMs: 5, maxDelayMs: 20, maxTotalMs: 10_000 };
