import { request } from 'undici';
import type { FaultProfileName, FaultRates } from '../../../src/sim/sim-options.js';
import { startSim } from '../../../src/sim/start-sim.js';
import type { StreamTruth } from '../../../src/sim/stream-truth.js';

export type StartedSim = Awaited<ReturnType<typeof startSim>>;
export type SimStartOptions = Parameters<typeof startSim>[0];

/** A small, fast simulator on port 0 for client tests. */
export function startTestSim(options: SimStartOptions = {}): Promise<StartedSim> {
  return startSim({ invoices: 120, clients: 30, operators: 2, host: '127.0.0.1', port: 0, ...options });
}

async function admin(
  url: string,
  method: 'GET' | 'PUT' | 'POST',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await request(`${url}${path}`, {
    method,
    headers: { 'x-sim-admin': 'dev-admin-token', 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`admin ${method} ${path}: ${response.statusCode} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Sets the fault profile (PUT /_sim/faults). */
export const setFaults = (url: string, faults: FaultProfileName | Partial<FaultRates>) =>
  admin(url, 'PUT', '/_sim/faults', typeof faults === 'string' ? { profile: faults } : faults);

/** The whole truth (GET /_sim/truth). */
export const truth = async (url: string) => (await admin(url, 'GET', '/_sim/truth')) as StreamTruth;

/** Mints an access or driver token (POST /_sim/tokens). */
export async function mintToken(
  url: string,
  spec: {
    type: 'apitoken' | 'driver';
    operatorId?: string;
    scopes?: string[];
    audience?: string[];
    ttlSeconds?: number;
  },
): Promise<string> {
  const answer = (await admin(url, 'POST', '/_sim/tokens', spec)) as Record<string, unknown>;
  const found = findString(answer, ['access', 'token', 'accessToken']);
  if (!found) throw new Error(`no token in ${JSON.stringify(answer)}`);
  return found;
}

function findString(value: unknown, keys: string[]): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (keys.includes(key) && typeof inner === 'string') return inner;
    const nested = findString(inner, keys);
    if (nested) return nested;
  }
  return undefined;
}

/** Collects every item of a page iterator. */
export async function allItems<T>(pages: AsyncIterable<{ items: T[] }>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages) items.push(...page.items);
  return items;
}

/** Short back-off so the suite stays fast. */
export const fastRetry = { attempts: 4, minDelayMs: 5, maxDelayMs: 20, maxTotalMs: 10_000 };
