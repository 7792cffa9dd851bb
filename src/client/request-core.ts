import { Readable } from 'node:stream';
import { LoginResponse } from '../../schemas/index.js';
import { processSecrets } from '../secrets/secret-registry.js';
import { linkSignals } from './abortable-sleep.js';
import { createAuthSession } from './auth-session.js';
import type { ResolvedClientOptions } from './client-options.js';
import { createConcurrencyLimit } from './concurrency-limit.js';
import {
  AuthError,
  HttpStatusError,
  InvalidArgumentError,
  NetworkError,
  PausedError,
  type RequestTarget,
  TmsError,
} from './errors.js';
import type { HttpMethod, HttpRequest, HttpResponse, HttpTransport } from './http-transport.js';
import { createLearnedAllowance } from './learned-allowance.js';
import { createOriginHealth, type OriginHealth, type OriginHealthView } from './origin-health.js';
import { cancelBody, type ReceivedJson } from './read-body.js';
import { createLocalBudget } from './request-budget.js';
import { buildQuery, type QueryParams } from './request-path.js';
import { requestsLeft } from './requests-left.js';
import { assertValid } from './response-checks.js';
import { withRetry } from './retry-policy.js';

/** How a request authenticates: none (login), the access token (REST), or the Driver API rules. */
export type AuthMode = 'none' | 'rest' | 'driver';

/** One API call, before auth, rate limit and retries. */
export interface ApiRequest {
  readonly method: HttpMethod;
  /** Path relative to baseUrl, ids already percent-encoded (request-path.ts). */
  readonly path: string;
  readonly query?: QueryParams | undefined;
  /** JSON value, or raw bytes / a stream sent as `application/octet-stream` unless headers say otherwise. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly auth: AuthMode;
  /** Driver API: the operator the call acts for (query `operatorId`). */
  readonly operatorId?: string | undefined;
  /** Repeating cannot duplicate anything. @default true for GET, PUT, PATCH, DELETE; false for POST */
  readonly idempotent?: boolean | undefined;
  /** Sent once, never retried: a first contact that must answer at once (`checkLogin`). @default false */
  readonly once?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Auth, rate limit and the retry policy around the transport; every typed method goes through it. */
export interface RequestCore {
  /** The parsed JSON answer (`undefined` when the body is empty). */
  json(request: ApiRequest): Promise<unknown>;
  /** The JSON answer, parsed and as the text it was parsed from. */
  received(request: ApiRequest): Promise<ReceivedJson>;
  /** Hands the answer's body to `consume`; the body is destroyed afterwards whatever happens. */
  stream<T>(request: ApiRequest, consume: (response: HttpResponse<Readable>) => Promise<T>): Promise<T>;
  /** The first login, sent once, until one succeeded (auth-session.ts `check`); throws its error as it is. */
  checkLogin(signal?: AbortSignal): Promise<void>;
  /** The origin's circuit breaker as it stands. */
  health(): OriginHealthView;
  /** What the client sent so far and how it is limited now. */
  traffic(): ClientTraffic;
}

/** Counters since the client was created, and the limits as they stand. */
export interface ClientTraffic {
  /** API calls made (a call is sent once, or more when retried). */
  readonly requests: number;
  /** Sends, retries included. */
  readonly sends: number;
  /** Sends that repeated a request after a failure. */
  readonly retries: number;
  /** Sends answered 429. */
  readonly rateLimited: number;
  /** Sends in flight, and the adaptive limit on them (concurrency-limit.ts). */
  readonly inFlight: number;
  readonly limit: number;
  /** Time sends spent waiting on the request budget (rate and pauses), summed over sends. */
  readonly budgetWaitMs: number;
  /** Wall time every send of this client was held because a 429 asked to wait (Retry-After), overlaps counted once. */
  readonly pausedMs: number;
  readonly breaker: OriginHealthView['state'];
}

export function createRequestCore(transport: HttpTransport, options: ResolvedClientOptions): RequestCore {
  // Told no allowance and sharing no budget: the process learns the TMS's from its 429s.
  const learned =
    options.budget === undefined && options.requestsPerSecond === 0 ? createLearnedAllowance() : undefined;
  const budget = options.budget ?? createLocalBudget(options.requestsPerSecond, undefined, learned);
  const limit = createConcurrencyLimit({ initial: options.initialConcurrency, max: options.connections });
  const counts = { requests: 0, sends: 0, retries: 0, rateLimited: 0, budgetWaitMs: 0, pausedMs: 0 };
  let pausedUntil = 0;
  /** Pauses the budget as a 429 asked, and counts the wall time it adds to the pauses before. */
  const pauseAsAsked = async (ms: number) => {
    const now = performance.now();
    const until = now + ms;
    if (until > pausedUntil) {
      counts.pausedMs += until - Math.max(now, pausedUntil);
      pausedUntil = until;
    }
    await budget.pause(ms);
  };
  const health = createOriginHealth({
    origin: options.origin,
    patienceMs: options.patienceMs,
    probeEveryMs: options.probeEveryMs,
    patienceSetting: options.patienceSetting,
    now: performance.now.bind(performance),
  });
  const session = createAuthSession({ ...options, login: (signal, once) => login(signal, once) });
  // Whatever the TMS repeats of them (an error answer quoting the login body) is blanked in every
  // message and log line (secret-registry.ts).
  processSecrets.add(options.apiToken);
  processSecrets.add(options.driverToken);

  /** Runs `work` under the client's signal and the request's, whichever aborts first. */
  async function underSignals<R>(
    request: ApiRequest,
    work: (signal?: AbortSignal) => Promise<R>,
  ): Promise<R> {
    if (!options.signal || !request.signal) return work(options.signal ?? request.signal);
    const linked = linkSignals(options.signal, request.signal);
    try {
      return await work(linked.signal);
    } finally {
      linked.unlink();
    }
  }

  function send<R>(request: ApiRequest, run: (http: HttpRequest) => Promise<R>): Promise<R> {
    return underSignals(request, (signal) => sendUnder(request, signal, run));
  }

  async function sendUnder<R>(
    request: ApiRequest,
    signal: AbortSignal | undefined,
    run: (http: HttpRequest) => Promise<R>,
  ): Promise<R> {
    counts.requests += 1;
    const target: RequestTarget = { method: request.method, path: request.path };
    const repeatable = !(request.body instanceof Readable);
    const started = performance.now();
    let sentBefore = false;
    // The token is read at every send, not once per request: a request retried for longer than a
    // token lives (Retry-After, back-off) sends the session's current token, renewed before expiry.
    const attempt = (tokenFor: () => Promise<string | undefined>) =>
      withRetry(
        async () => {
          health.admit();
          const waitFrom = performance.now();
          const maxWaitMs = options.retry.maxTotalMs - (performance.now() - started);
          const pausedForMs = await budget.take(signal, maxWaitMs);
          if (pausedForMs > 0) throw pausedError(pausedForMs, target, options);
          // Read once the budget let the send go: a wait for the allowance may outlast a token.
          const token = await tokenFor();
          const release = await limit.acquire(signal);
          counts.budgetWaitMs += performance.now() - waitFrom;
          counts.sends += 1;
          if (sentBefore) counts.retries += 1;
          sentBefore = true;
          try {
            const result = await observed(health, () => run(toHttpRequest(request, token, signal)));
            learned?.accepted();
            // The slot went to a waiting send: its request leaves before this answer is handed
            // over, so the caller's work on the answer does not hold it back (requests-left.ts).
            if (release('ok')) await requestsLeft();
            return result;
          } catch (error) {
            release(isTransientFailure(error) ? 'drop' : 'ok');
            if (error instanceof HttpStatusError && error.status !== 429) learned?.accepted();
            if (error instanceof HttpStatusError && error.status === 429) {
              learned?.refused();
              counts.rateLimited += 1;
              if (error.retryAfterMs !== undefined) await pauseAsAsked(error.retryAfterMs);
            }
            throw error;
          }
        },
        { target, idempotent: request.idempotent ?? request.method !== 'POST', signal },
        repeatable && !request.once ? options : { ...options, retry: { ...options.retry, attempts: 1 } },
      );
    return withAuth(request, target, signal, repeatable, attempt);
  }

  async function withAuth<R>(
    request: ApiRequest,
    target: RequestTarget,
    signal: AbortSignal | undefined,
    repeatable: boolean,
    attempt: (tokenFor: () => Promise<string | undefined>) => Promise<R>,
  ): Promise<R> {
    if (request.auth === 'none') return attempt(async () => undefined);
    const { driverToken } = options;
    if (request.auth === 'driver' && driverToken) {
      return attempt(async () => driverToken).catch((error) =>
        rethrowUnauthorized(error, target, 'the driver token'),
      );
    }
    if (!options.apiToken)
      throw new InvalidArgumentError(`option apiToken is required for ${target.method} ${target.path}`);
    let sent: string | undefined;
    const sessionToken = async () => {
      sent = await session.accessToken(signal);
      return sent;
    };
    try {
      return await attempt(sessionToken);
    } catch (error) {
      if (!isUnauthorized(error)) throw error;
      if (sent) session.invalidate(sent);
      if (!repeatable) rethrowUnauthorized(error, target, 'the access token');
      options.logger.info({ ...target }, 'access token refused (401), logging in again');
      return attempt(sessionToken).catch((again) =>
        rethrowUnauthorized(again, target, 'a fresh access token'),
      );
    }
  }

  async function login(signal: AbortSignal | undefined, once = false) {
    const target = { method: 'POST', path: options.loginPath };
    const body = await send(
      {
        ...target,
        method: 'POST',
        auth: 'none',
        idempotent: true,
        once,
        body: { apiToken: options.apiToken },
        signal,
      },
      (http) => transport.sendJson(http).then((response) => response.body.value),
    ).catch((error) => {
      if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) {
        throw new AuthError('TMS_AUTH_LOGIN_FAILED', `the API token was refused (${error.status})`, {
          target,
          status: error.status,
          body: error.body,
        });
      }
      throw error;
    });
    const item = assertValid(LoginResponse, body, 'the login answer', target).data.items[0]!;
    processSecrets.addRotating(item.access);
    return { access: item.access, expiresAtMs: Date.parse(item.expiresAt) };
  }

  return {
    checkLogin: (signal) => session.check(signal),
    health: () => health.view(),
    traffic: () => ({ ...counts, ...limit.view(), breaker: health.view().state }),
    json: (request) =>
      send(request, (http) => transport.sendJson(http)).then((response) => response.body.value),
    received: (request) =>
      send(request, (http) => transport.sendJson(http)).then((response) => response.body),
    // The body is read under the request's signals too: they stay linked until `consume` ends.
    stream: (request, consume) =>
      underSignals(request, async (signal) => {
        const response = await sendUnder(request, signal, (http) => transport.sendStream(http));
        try {
          return await consume(response);
        } finally {
          cancelBody(response.body);
        }
      }),
  };
}

/** Tells the breaker whether the origin answered: any status but 429 and 5xx counts, whatever the body. */
async function observed<R>(health: OriginHealth, send: () => Promise<R>): Promise<R> {
  try {
    const result = await send();
    health.answered();
    return result;
  } catch (error) {
    if (isTransientFailure(error)) health.failed(error);
    else if (error instanceof TmsError) health.answered();
    throw error;
  }
}

function isTransientFailure(error: unknown): error is TmsError {
  if (error instanceof NetworkError) return true;
  return error instanceof HttpStatusError && (error.status === 429 || error.status >= 500);
}

function toHttpRequest(
  request: ApiRequest,
  token: string | undefined,
  signal: AbortSignal | undefined,
): HttpRequest {
  const raw = Buffer.isBuffer(request.body) || request.body instanceof Readable;
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  if (request.body !== undefined)
    headers['content-type'] ??= raw ? 'application/octet-stream' : 'application/json';
  const query =
    request.operatorId === undefined ? request.query : { ...request.query, operatorId: request.operatorId };
  return {
    method: request.method,
    path: request.path,
    query: buildQuery(query),
    headers,
    body:
      request.body === undefined
        ? undefined
        : raw
          ? (request.body as Buffer | Readable)
          : JSON.stringify(request.body),
    signal,
  };
}

function pausedError(pausedForMs: number, target: RequestTarget, options: ResolvedClientOptions) {
  return new PausedError(pausedForMs, {
    target,
    ceilingMs: options.retry.maxTotalMs,
    setting: options.ceilingSetting,
  });
}

function isUnauthorized(error: unknown): error is HttpStatusError {
  return error instanceof HttpStatusError && !(error instanceof AuthError) && error.status === 401;
}

function rethrowUnauthorized(error: unknown, target: RequestTarget, what: string): never {
  if (!isUnauthorized(error)) throw error;
  throw new AuthError('TMS_AUTH_REJECTED', `${what} was refused (401)`, {
    target,
    status: 401,
    body: error.body,
  });
}
