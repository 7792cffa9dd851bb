import { request } from 'undici';
import { accountHeader } from './accounts/account-options.js';
import type { ChangeFilter } from './admin/random-changes.js';
import type { OverridableStream, SimOverride } from './admin/record-overrides.js';
import type { RequestCounts, SecondCount } from './admin/request-counter.js';
import type { SimChange } from './admin/sim-change.js';
import type { IssuedToken, TokenType } from './auth/token-issuer.js';
import type { HostileMode, HostileStatus } from './hostile/hostile-rule.js';
import type { FaultProfileName, FaultRates } from './sim-options.js';
import type { StreamTruth } from './stream-truth.js';

export type { ChangeFilter } from './admin/random-changes.js';
export type { OverridableStream, SimOverride } from './admin/record-overrides.js';
export type { RequestCounts, SecondCount } from './admin/request-counter.js';
export type { SimChange } from './admin/sim-change.js';
export type { HostileMode, HostileStatus } from './hostile/hostile-rule.js';

/** Claims of a token minted through `POST /_sim/tokens`. */
export interface MintTokenRequest {
  type: TokenType;
  /** Operator claim. */
  operatorId?: string;
  /** @default ['invoice', 'client'] for apitoken, [] for driver */
  scopes?: string[];
  /** @default ['external'] for apitoken, ['driver'] for driver */
  audience?: string[];
  /** Negative values mint an already expired token. @default the simulator's tokenTtlSeconds */
  ttlSeconds?: number;
}

/** A typed client of the admin routes (docs/simulator.md), for tests and the CLI. */
export interface SimAdminClient {
  applyChanges(count: number, seed?: number, filter?: ChangeFilter): Promise<SimChange[]>;
  setFaults(faults: FaultProfileName | Partial<FaultRates>): Promise<FaultRates>;
  truth(stream?: string): Promise<StreamTruth>;
  /** Faults injected since start, by kind (`GET /_sim/faults`). */
  injectedFaults(): Promise<Record<string, number>>;
  mintToken(claims: MintTokenRequest): Promise<IssuedToken>;
  /**
   * Makes `apiToken` the account's API token: the old one is refused at login, and every access
   * token handed out before is refused (401). Rotate to a value nobody has to revoke the token, and
   * back to the old one to restore it (`PUT /_sim/api-token`).
   */
  rotateApiToken(apiToken: string): Promise<{ revokedAt: string }>;
  /** Serves the record with these raw top-level fields, valid or not, under a new sequence. */
  setOverride(stream: OverridableStream, id: string, fields: Record<string, unknown>): Promise<SimOverride>;
  /** Serves every overridden record as it is again, each under a new sequence. */
  clearOverrides(): Promise<SimOverride[]>;
  /** Makes the next `count` GET answers under `path` hostile, after `afterPages` pass (docs/simulator.md). */
  setHostile(rule: {
    mode: HostileMode;
    path?: string;
    count?: number;
    afterPages?: number;
  }): Promise<HostileStatus>;
  /** Ends the hostile rule; answers what it had done. */
  clearHostile(): Promise<HostileStatus | null>;
  /** API answers served so far, per route and status. */
  requests(): Promise<RequestCounts>;
  /** API answers per wall-clock second (login excluded), the last hour's, oldest first. */
  requestsPerSecond(): Promise<SecondCount[]>;
}

export function createSimAdminClient(options: {
  url: string;
  adminToken?: string;
  /** The account of a simulator serving several (`x-sim-account`, 1..N). @default 1 */
  account?: number;
}): SimAdminClient {
  const call = async <T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<T> => {
    const response = await request(`${options.url}${path}`, {
      method,
      // Admin calls are rare and may come minutes apart (a drill comparing a large store between
      // them): a fresh connection each time, never a kept-alive one the server has since closed.
      reset: true,
      headers: {
        'x-sim-admin': options.adminToken ?? 'dev-admin-token',
        ...(options.account === undefined ? {} : { [accountHeader]: String(options.account) }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300)
      throw new Error(`${method} ${path} answered ${response.statusCode}: ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    applyChanges: async (count, seed, filter) =>
      (await call<{ changes: SimChange[] }>('POST', '/_sim/changes', { count, seed, ...filter })).changes,
    setFaults: async (faults) =>
      (
        await call<{ rates: FaultRates }>(
          'PUT',
          '/_sim/faults',
          typeof faults === 'string' ? { profile: faults } : faults,
        )
      ).rates,
    injectedFaults: async () =>
      (await call<{ injected: Record<string, number> }>('GET', '/_sim/faults')).injected,
    truth: (stream) => call('GET', `/_sim/truth${stream ? `?stream=${encodeURIComponent(stream)}` : ''}`),
    mintToken: (claims) => call('POST', '/_sim/tokens', claims),
    rotateApiToken: (apiToken) => call('PUT', '/_sim/api-token', { apiToken }),
    setOverride: (stream, id, fields) => call('PUT', '/_sim/overrides', { stream, id, fields }),
    clearOverrides: async () => (await call<{ cleared: SimOverride[] }>('DELETE', '/_sim/overrides')).cleared,
    setHostile: async (rule) => (await call<{ rule: HostileStatus }>('PUT', '/_sim/hostile', rule)).rule,
    clearHostile: async () =>
      (await call<{ cleared: HostileStatus | null }>('DELETE', '/_sim/hostile')).cleared,
    requests: async () => (await call<{ requests: RequestCounts }>('GET', '/_sim/requests')).requests,
    requestsPerSecond: async () =>
      (await call<{ perSecond: SecondCount[] }>('GET', '/_sim/requests')).perSecond,
  };
}
