import { type Logger, pino } from 'pino';
import type { StopSignal } from '../linked-signals.js';
import { InvalidArgumentError } from './client-errors.js';
import type { RequestBudget } from './request-budget.js';

/** Back-off of the one retry policy (retry-policy.ts). */
export interface RetryOptions {
  /** Sends per request, the first included; 1 = never retry. @default Infinity (the breaker and maxTotalMs decide) */
  attempts?: number;
  /** The request's ceiling: give up once this much time has passed since the first send (waits included). @default 120000 */
  maxTotalMs?: number;
  /** Base of the exponential back-off: retry n waits a random time in [0, min(maxDelayMs, minDelayMs * 2^n)). @default 250 */
  minDelayMs?: number;
  /** Cap of one back-off wait (a server's Retry-After may be longer and is honoured). @default 10000 */
  maxDelayMs?: number;
}

export interface TimeoutOptions {
  /** Connecting (TCP and TLS). @default 10000 */
  connectMs?: number;
  /** From sending to the complete response headers. @default 30000 */
  headersMs?: number;
  /** Longest silence between two body chunks. @default 30000 */
  bodyMs?: number;
  /**
   * The deadline of one send, from sending to the last byte of the answer, however the server
   * paces it (a body dripped a byte at a time never trips `bodyMs`). A streamed answer (`stream()`)
   * is bounded until its headers; its body is the caller's to bound. @default 60000
   */
  totalMs?: number;
}

export interface TmsClientOptions {
  /** Base URL of the TMS; every path of docs/api.md is relative to it (may carry a path prefix). Required. */
  baseUrl: string | URL;
  /** API token exchanged at `loginPath` for an access token. Required unless only `driverToken` calls are made. @default undefined */
  apiToken?: string | undefined;
  /** Path of the login operation, relative to baseUrl. @default '/auth/login-api-token' */
  loginPath?: string;
  /** Driver JWT used for the Driver API instead of the access token. @default undefined */
  driverToken?: string | undefined;
  /**
   * Upper bound of requests in flight and of open connections to the origin (one keep-alive Pool):
   * the ceiling of the adaptive concurrency limit (concurrency-limit.ts). @default 8
   */
  connections?: number;
  /** Requests in flight at first; the limit grows while the origin answers well. @default 4 */
  initialConcurrency?: number;
  /** The allowance every send takes from; shared by whoever shares it. @default an in-process budget of `requestsPerSecond` */
  budget?: RequestBudget | undefined;
  timeouts?: TimeoutOptions;
  /** Largest response body read into memory; the transfer is aborted beyond. @default 67108864 (64 MiB) */
  maxBodyBytes?: number;
  retry?: RetryOptions;
  /**
   * How long the origin may fail every request (429, 5xx, resets, timeouts) before its circuit
   * breaker opens and requests stop being retried (origin-health.ts). @default 60000
   */
  patienceMs?: number;
  /** While the breaker is open, one request every this many ms is let through as a probe; its success closes the breaker. @default 5000 */
  probeEveryMs?: number;
  /** How errors name the patience setting (the product passes its environment variable). @default 'patienceMs' */
  patienceSetting?: string;
  /** How errors name the request ceiling setting. @default 'retry.maxTotalMs' */
  ceilingSetting?: string;
  /** How errors name the deadline of one send. @default 'timeouts.totalMs' */
  timeoutSetting?: string;
  /** Client-side request rate (spacing between sends, retries included); 0 = off. @default 0 */
  requestsPerSecond?: number;
  /** Re-login this long before the access token's `expiresAt` (at most half its lifetime). @default 60000 */
  refreshMarginMs?: number;
  /** Where the client logs (objects first, no secrets). @default a silent pino logger */
  logger?: Logger;
  /** Cancels every request and wait of this client. @default undefined */
  signal?: StopSignal | undefined;
  /** Clock in ms since the epoch, for token expiry. @default Date.now */
  now?: () => number;
  /** Source of jitter in [0, 1). @default Math.random */
  random?: () => number;
}

type Required2<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> };

/** Options after defaults, checked and frozen. */
export interface ResolvedClientOptions {
  readonly origin: string;
  /** Path prefix of baseUrl without a trailing slash ('' when none). */
  readonly basePath: string;
  readonly apiToken: string | undefined;
  readonly loginPath: string;
  readonly driverToken: string | undefined;
  readonly connections: number;
  readonly initialConcurrency: number;
  readonly budget: RequestBudget | undefined;
  readonly timeouts: Required2<TimeoutOptions>;
  readonly maxBodyBytes: number;
  readonly retry: Required2<RetryOptions>;
  readonly patienceMs: number;
  readonly probeEveryMs: number;
  readonly patienceSetting: string;
  readonly ceilingSetting: string;
  readonly timeoutSetting: string;
  readonly requestsPerSecond: number;
  readonly refreshMarginMs: number;
  readonly logger: Logger;
  readonly signal: StopSignal | undefined;
  readonly now: () => number;
  readonly random: () => number;
}

/** Every default in one object. */
export const clientDefaults = {
  loginPath: '/auth/login-api-token',
  connections: 8,
  initialConcurrency: 4,
  timeouts: { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 },
  maxBodyBytes: 64 * 1024 * 1024,
  retry: { attempts: Number.POSITIVE_INFINITY, maxTotalMs: 120_000, minDelayMs: 250, maxDelayMs: 10_000 },
  patienceMs: 60_000,
  probeEveryMs: 5000,
  patienceSetting: 'patienceMs',
  ceilingSetting: 'retry.maxTotalMs',
  timeoutSetting: 'timeouts.totalMs',
  requestsPerSecond: 0,
  refreshMarginMs: 60_000,
} as const;

/** Merges the defaults, checks every value at once and freezes the result. */
export function resolveClientOptions(options: TmsClientOptions): ResolvedClientOptions {
  const url = parseBaseUrl(options.baseUrl);
  const resolved: ResolvedClientOptions = {
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ''),
    apiToken: options.apiToken || undefined,
    loginPath: options.loginPath ?? clientDefaults.loginPath,
    driverToken: options.driverToken || undefined,
    connections: options.connections ?? clientDefaults.connections,
    initialConcurrency: options.initialConcurrency ?? clientDefaults.initialConcurrency,
    budget: options.budget,
    timeouts: Object.freeze({ ...clientDefaults.timeouts, ...stripUndefined(options.timeouts) }),
    maxBodyBytes: options.maxBodyBytes ?? clientDefaults.maxBodyBytes,
    retry: Object.freeze({ ...clientDefaults.retry, ...stripUndefined(options.retry) }),
    patienceMs: options.patienceMs ?? clientDefaults.patienceMs,
    probeEveryMs: options.probeEveryMs ?? clientDefaults.probeEveryMs,
    patienceSetting: options.patienceSetting ?? clientDefaults.patienceSetting,
    ceilingSetting: options.ceilingSetting ?? clientDefaults.ceilingSetting,
    timeoutSetting: options.timeoutSetting ?? clientDefaults.timeoutSetting,
    requestsPerSecond: options.requestsPerSecond ?? clientDefaults.requestsPerSecond,
    refreshMarginMs: options.refreshMarginMs ?? clientDefaults.refreshMarginMs,
    logger: options.logger ?? pino({ level: 'silent' }),
    signal: options.signal,
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
  };
  checkNumbers(resolved);
  if (!resolved.loginPath.startsWith('/')) fail('loginPath', 'must start with "/"');
  return Object.freeze(resolved);
}

function parseBaseUrl(baseUrl: string | URL): URL {
  if (!baseUrl) fail('baseUrl', 'is required');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    fail('baseUrl', 'is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail('baseUrl', 'must be http: or https:');
  if (url.username || url.password) fail('baseUrl', 'must not carry credentials');
  return url;
}

function checkNumbers(o: ResolvedClientOptions): void {
  const checks: Array<[string, number, number]> = [
    ['connections', o.connections, 1],
    ['initialConcurrency', o.initialConcurrency, 1],
    ['timeouts.connectMs', o.timeouts.connectMs, 1],
    ['timeouts.headersMs', o.timeouts.headersMs, 1],
    ['timeouts.bodyMs', o.timeouts.bodyMs, 1],
    ['timeouts.totalMs', o.timeouts.totalMs, 1],
    ['maxBodyBytes', o.maxBodyBytes, 1],
    ['retry.maxTotalMs', o.retry.maxTotalMs, 0],
    ['patienceMs', o.patienceMs, 0],
    ['probeEveryMs', o.probeEveryMs, 0],
    ['retry.minDelayMs', o.retry.minDelayMs, 0],
    ['retry.maxDelayMs', o.retry.maxDelayMs, 0],
    ['requestsPerSecond', o.requestsPerSecond, 0],
    ['refreshMarginMs', o.refreshMarginMs, 0],
  ];
  for (const [name, value, min] of checks) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
      fail(name, `must be a finite number >= ${min}, got ${String(value)}`);
    }
  }
  const { attempts } = o.retry;
  if (!(attempts === Number.POSITIVE_INFINITY || (Number.isInteger(attempts) && attempts >= 1)))
    fail('retry.attempts', `must be an integer >= 1 or Infinity, got ${String(attempts)}`);
}

function stripUndefined<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function fail(name: string, problem: string): never {
  throw new InvalidArgumentError(`option ${name} ${problem}`);
}
