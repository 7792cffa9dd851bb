// Over 300 lines on purpose: the client's whole error catalogue, every code, retry decision and
// what each error decides of itself side by side, so a reader compares them in one place.
import { permanent, type RetryDecision, TmsSyncError, transient } from '../tms-sync-error.js';

/**
 * The TMS client's error catalogue. Every error the client throws (except the caller's own abort
 * reason) is a TmsError with a stable `code` and a retry decision (src/tms-sync-error.ts);
 * `retryable` says whether repeating the same call later may succeed. Messages, `toString()` and
 * enumerable fields never hold tokens or query strings.
 */

export type TmsErrorCode =
  | 'TMS_INVALID_ARGUMENT'
  | 'TMS_REQUEST_REJECTED'
  | 'TMS_RATE_LIMITED'
  | 'TMS_PAUSED'
  | 'TMS_SERVER_ERROR'
  | 'TMS_AUTH_LOGIN_FAILED'
  | 'TMS_AUTH_REJECTED'
  | 'TMS_AUTH_FORBIDDEN'
  | 'TMS_NETWORK'
  | 'TMS_TIMEOUT'
  | 'TMS_AMBIGUOUS_WRITE'
  | 'TMS_INVALID_RESPONSE'
  | 'TMS_RESPONSE_TOO_LARGE'
  | 'TMS_CURSOR_LOOP'
  | 'TMS_PAGINATION'
  | 'TMS_UNREACHABLE';

/** Where a request went: method and path without the query string. */
export interface RequestTarget {
  readonly method: string;
  readonly path: string;
}

export interface TmsErrorDetails {
  readonly target?: RequestTarget | undefined;
  readonly status?: number | undefined;
  /** The response body as parsed JSON or text, truncated; opaque (docs/records.md). */
  readonly body?: unknown;
  readonly cause?: unknown;
}

/** Base of every client error. */
export abstract class TmsError extends TmsSyncError {
  abstract override readonly code: TmsErrorCode;
  /** Whether the same call may succeed later unchanged (after the retry policy gave up). */
  get retryable(): boolean {
    return this.retry.kind !== 'permanent';
  }
  /**
   * The retry policy repeats the request for it (retry-policy.ts): it is retryable, and no later
   * than a later run could (not so for an open breaker, or a pause past the request's ceiling).
   */
  get retriedInRequest(): boolean {
    return this.retryable;
  }
  /** The origin failed to answer (a connection failure, a 429, a 5xx): the breaker and the concurrency limit count it. */
  get originFailed(): boolean {
    return false;
  }
  /** A request the TMS refused, or kept failing, concerns that request alone; a TMS asking everyone to wait does not. */
  override get concernsOneRequest(): boolean {
    return this.retry.kind !== 'wait';
  }
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly status: number | undefined;
  readonly body: unknown;
  /** How many times the request was sent; set by the retry policy. */
  attempts = 1;
  /** The origin the request went to; set by the retry policy. */
  origin: string | undefined;
  /** Set by the retry policy when it stopped retrying a retryable failure at the request's ceiling. */
  gaveUp: { readonly afterMs: number; readonly ceilingMs: number; readonly setting: string } | undefined;

  constructor(message: string, details: TmsErrorDetails = {}) {
    super(message.replace(/\s+/g, ' ').trim(), details.cause === undefined ? {} : { cause: details.cause });
    this.method = details.target?.method;
    this.path = details.target?.path;
    this.status = details.status;
    this.body = details.body;
  }

  /** One line: `Name [CODE] METHOD origin/path -> status: message (n attempts[ in s, up to the ceiling])`. */
  override toString(): string {
    const target = this.method ? ` ${this.method} ${this.origin ?? ''}${this.path}` : '';
    const status = this.status === undefined ? '' : ` -> ${this.status}`;
    return `${this.name} [${this.code}]${target}${status}: ${this.message}${this.attemptsNote()}`;
  }

  private attemptsNote(): string {
    if (this.attempts <= 1) return '';
    if (!this.gaveUp) return ` (${this.attempts} attempts)`;
    const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
    return ` (${this.attempts} attempts in ${seconds(this.gaveUp.afterMs)}; one request is retried for at most ${seconds(this.gaveUp.ceilingMs)}, set by ${this.gaveUp.setting})`;
  }
}

/** An option or call argument is missing or out of range; the message names it. */
export class InvalidArgumentError extends TmsError {
  readonly code = 'TMS_INVALID_ARGUMENT';
  readonly retry = permanent;
  override get concernsOneRequest(): boolean {
    return false;
  }
}

/** The server answered a non-2xx status. 429 and 5xx are retryable, other 4xx never are. */
export class HttpStatusError extends TmsError {
  readonly code: TmsErrorCode;
  /** 429: wait for its Retry-After; 5xx: transient; any other 4xx: permanent (docs/api.md, Errors). */
  readonly retry: RetryDecision;
  declare readonly status: number;
  /** The server's Retry-After, in milliseconds from when the answer arrived. */
  readonly retryAfterMs: number | undefined;
  /** A 429 or a 5xx: what the decision of the status says may pass. */
  override get originFailed(): boolean {
    return this.retry.kind !== 'permanent';
  }
  /** A 400: the request itself (the cursor it carried) was refused. */
  override get refusesCursor(): boolean {
    return this.status === 400;
  }

  constructor(message: string, details: TmsErrorDetails & { status: number; retryAfterMs?: number }) {
    super(message, details);
    this.retryAfterMs = details.retryAfterMs;
    this.retry = decisionOfStatus(details.status, details.retryAfterMs);
    this.code = statusCode(details.status);
  }
}

function decisionOfStatus(status: number, retryAfterMs: number | undefined): RetryDecision {
  if (status === 429) return { kind: 'wait', afterMs: retryAfterMs };
  return status >= 500 ? transient : permanent;
}

function statusCode(status: number): TmsErrorCode {
  if (status === 429) return 'TMS_RATE_LIMITED';
  return status >= 500 ? 'TMS_SERVER_ERROR' : 'TMS_REQUEST_REJECTED';
}

/**
 * Credentials problem; fix the configuration, repeating will not help: the API token was refused
 * at login, a fresh access token was refused again (401 twice), or the token lacks a scope (403).
 */
export class AuthError extends HttpStatusError {
  override readonly code: 'TMS_AUTH_LOGIN_FAILED' | 'TMS_AUTH_REJECTED' | 'TMS_AUTH_FORBIDDEN';
  override readonly retry = permanent;
  override get concernsOneRequest(): boolean {
    return false;
  }

  constructor(code: AuthError['code'], message: string, details: TmsErrorDetails & { status: number }) {
    super(message, details);
    this.code = code;
  }
}

/**
 * The connection failed. `mayHaveReachedServer` is false only when the request provably never left
 * (connection refused, DNS failure, connect timeout): then even a create may be repeated.
 */
export class NetworkError extends TmsError {
  readonly code: TmsErrorCode = 'TMS_NETWORK';
  readonly retry = transient;
  override get originFailed(): boolean {
    return true;
  }
  readonly mayHaveReachedServer: boolean;
  /** The underlying system or undici code, e.g. `ECONNRESET`, `UND_ERR_SOCKET`. */
  readonly causeCode: string | undefined;

  constructor(
    message: string,
    details: TmsErrorDetails & { mayHaveReachedServer: boolean; causeCode?: string },
  ) {
    super(message, details);
    this.mayHaveReachedServer = details.mayHaveReachedServer;
    this.causeCode = details.causeCode;
  }
}

/**
 * A connect, headers or body-silence timeout, or the send's whole deadline (`total`: the answer
 * did not end in time, however it was paced) (option `timeouts`).
 */
export class TimeoutError extends NetworkError {
  override readonly code = 'TMS_TIMEOUT';
  readonly phase: 'connect' | 'headers' | 'body' | 'total';

  constructor(
    phase: TimeoutError['phase'],
    details: TmsErrorDetails & { causeCode?: string; limit?: { ms: number; setting: string } },
  ) {
    super(timeoutMessage(phase, details.limit), { ...details, mayHaveReachedServer: phase !== 'connect' });
    this.phase = phase;
  }
}

function timeoutMessage(phase: TimeoutError['phase'], limit: { ms: number; setting: string } | undefined) {
  if (phase === 'total') {
    const within = limit ? ` within ${limit.ms / 1000} s (the request timeout, set by ${limit.setting})` : '';
    return `the answer did not end${within}`;
  }
  return `no ${phase === 'connect' ? 'connection' : `response ${phase}`} within the ${phase} timeout`;
}

/**
 * A create (POST) failed after it may have reached the server (timeout, reset, 5xx). It was NOT
 * repeated, since no idempotency key exists (docs/api.md, Errors): read the state back (or ask
 * get-processed-mutations) before trying again. `cause` is the failure.
 */
export class AmbiguousWriteError extends TmsError {
  readonly code = 'TMS_AMBIGUOUS_WRITE';
  readonly retry = permanent;
}

/** One problem in a response: JSON pointer-like path and what is wrong. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * Every send to the TMS is paused (a 429's Retry-After, shared by whoever shares the request
 * budget) for longer than this request may still wait (its ceiling): it was not sent. Wait: the
 * worker delays the job until the pause ends, costing no attempt.
 */
export class PausedError extends TmsError {
  readonly code = 'TMS_PAUSED';
  readonly retry: RetryDecision;
  override get retriedInRequest(): boolean {
    return false;
  }
  readonly pausedForMs: number;

  constructor(pausedForMs: number, details: TmsErrorDetails & { ceilingMs: number; setting: string }) {
    const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;
    super(
      `the TMS asked every sender to wait (a 429's Retry-After) ${seconds(pausedForMs)} more, longer than one request may wait (${seconds(details.ceilingMs)}, set by ${details.setting}); not sent`,
      details,
    );
    this.pausedForMs = pausedForMs;
    this.retry = { kind: 'wait', afterMs: pausedForMs };
  }
}

/** The answer is not what the API promises: invalid JSON, no `data`, a malformed envelope or record. */
export class ResponseValidationError extends TmsError {
  readonly code = 'TMS_INVALID_RESPONSE';
  readonly retry = permanent;
  override get refusesCursor(): boolean {
    return true;
  }
  readonly issues: readonly ValidationIssue[];

  constructor(message: string, details: TmsErrorDetails & { issues?: readonly ValidationIssue[] }) {
    const issues = details.issues ?? [];
    const first = issues[0] ? `; ${issues[0].path || '/'}: ${issues[0].message}` : '';
    super(`${message}${first}`, details);
    this.issues = issues;
  }
}

/** The response body exceeded `maxBodyBytes`; the transfer was aborted. */
export class ResponseTooLargeError extends TmsError {
  readonly code = 'TMS_RESPONSE_TOO_LARGE';
  readonly retry = permanent;
}

/** A listing handed out a cursor it had handed out before in the same pass. */
export class CursorLoopError extends TmsError {
  readonly code = 'TMS_CURSOR_LOOP';
  readonly retry = permanent;
  override get refusesCursor(): boolean {
    return true;
  }
}

/** A listing broke the paging contract: `hasMore` without a cursor, or endless empty pages. */
export class PaginationError extends TmsError {
  readonly code = 'TMS_PAGINATION';
  readonly retry = permanent;
  override get refusesCursor(): boolean {
    return true;
  }
}

/**
 * The origin's circuit breaker is open: no request to it has succeeded for the patience time
 * (origin-health.ts). Requests fail at once instead of being retried; a later run (the worker's
 * next attempt) tries again, and one probe every few seconds closes the breaker when it answers.
 */
export class BreakerOpenError extends TmsError {
  readonly code = 'TMS_UNREACHABLE';
  readonly retry = transient;
  override get retriedInRequest(): boolean {
    return false;
  }
  override get concernsOneRequest(): boolean {
    return false;
  }
  /** The last failure before the breaker opened, one line. */
  readonly lastFailure: string | undefined;

  constructor(message: string, details: { origin: string; lastFailure: string | undefined }) {
    super(message);
    this.origin = details.origin;
    this.lastFailure = details.lastFailure;
  }
}
