/**
 * The alternatives docs/records.md leaves open; each flag switches the simulator to another
 * reasonable choice so tests can prove the worker assumes none of them.
 */
export interface SimVariant {
  /** Error body shape: `json` = `{"error": {status, code, message, details?}}`, `flat` = `{"status", "message"}`, `text` = text/plain. @default 'json' */
  errorBody: 'json' | 'flat' | 'text';
  /** Single-resource answers: `data` = `{"data": record}`, `items` = `{"data": {"items": [record]}}`. @default 'data' */
  singleEnvelope: 'data' | 'items';
  /** Also put a `nextCursor` on the last page (that leads to an empty page). @default false */
  cursorOnLastPage: boolean;
  /** Access tokens as signed JWTs or as opaque random strings. @default 'jwt' */
  tokenFormat: 'jwt' | 'opaque';
  /** Name of the sequence field in records. @default 'sequence' */
  sequenceField: string;
  /**
   * `plain` ids are digits; `unsafe` ids contain characters that must be percent-encoded in paths
   * (`/`, space, `#`, `?`, `%`); `dots`: the first two invoices and clients are `.` and `..` (Driver
   * API ids stay plain). @default 'plain'
   */
  idStyle: 'plain' | 'unsafe' | 'dots';
  /** Start sequences just below 2^53 instead of near 1,000. @default false */
  largeSequences: boolean;
  /**
   * Record shapes: `default` = tms-sim's own; `alt` = another TMS's, fixed (other names, flat totals,
   * objects for strings, fields missing); `random` = chosen from `recordShapesSeed` per stream and
   * field (renamed, retyped, nulled, dropped, nested, new fields). The keys the engine needs are never
   * touched; keys it may replace by a position are left out of some records (docs/simulator.md). @default 'default'
   */
  recordShapes: 'default' | 'alt' | 'random';
  /** Seed of the `random` record shapes. @default 1 */
  recordShapesSeed: number;
}

/** Probabilities (0..1) and durations of injected faults, per API request (admin routes never fault). */
export interface FaultRates {
  /** 429 with Retry-After. @default 0 */
  rateLimited: number;
  /** 500, 502 or 503, JSON or HTML body. @default 0 */
  serverError: number;
  /** Connection reset before any byte of the answer. @default 0 */
  reset: number;
  /** Body cut mid-way (Content-Length promises more), then the socket is closed. @default 0 */
  truncate: number;
  /** Answer stalls mid-body for `stallMs`. @default 0 */
  stall: number;
  /**
   * A write (POST, PUT, PATCH, DELETE, the login included) is applied, then its answer is lost: half
   * the time the connection is reset after the handler committed, half the time a proxy's 502
   * replaces the answer. Reads are not affected. @default 0
   */
  lostResponse: number;
  /** Added latency on every answer, in ms. @default 0 */
  latencyMs: number;
  /** A further random latency from 0 to this, in ms, per answer. @default 0 */
  latencyJitterMs: number;
  /**
   * Latency after the handler ran, on the answer's way back, in ms: a client that gives up or dies
   * meanwhile leaves the request applied (`latencyMs` comes before the handler: a client gone by then
   * leaves nothing applied). @default 0
   */
  answerLatencyMs: number;
  /** How long a stall lasts, in ms. @default 30000 */
  stallMs: number;
  /** Retry-After seconds on injected 429s. @default 1 */
  retryAfterSeconds: number;
}

export type FaultProfileName = 'none' | 'flaky' | 'hostile' | 'slow' | 'throttled' | 'harsh' | 'lossy';

export interface SimOptions {
  /** Seed of the deterministic data generator and of every random choice. @default 1 */
  seed: number;
  /** Invoices in the initial data set. @default 1000 */
  invoices: number;
  /** Clients in the initial data set. @default 200 */
  clients: number;
  /** Operators with Driver API data. @default 2 */
  operators: number;
  /**
   * Days of rides each operator has (about ten tasks a day, plus a few unassigned): 7 is two days
   * back to four ahead; fewer keep the most recent days (1: today), for fleets of thousands of
   * operators. @default 7
   */
  rideDays: number;
  /**
   * TMS accounts served by one simulator (src/sim/accounts/): with more than one, account `i` (1..N)
   * has its own data (seed + i - 1) and API token `<apiToken>-<i>`, the access tokens its login hands
   * out, its allowance and faults; admin routes take the header `x-sim-account: <i>`. @default 1
   */
  accounts: number;
  /** API token accepted by the login operation. @default 'dev-api-token' */
  apiToken: string;
  /** Value of the `x-sim-admin` header that opens the admin routes. @default 'dev-admin-token' */
  adminToken: string;
  /** Lifetime of access tokens, in seconds. @default 3600 */
  tokenTtlSeconds: number;
  /** Path of the login operation. @default '/auth/login-api-token' */
  loginPath: string;
  /** Fault profile at start: a name or explicit rates. @default 'none' */
  faults: FaultProfileName | Partial<FaultRates>;
  /** Requests per second of the tenant (every token together) before 429 (token bucket); 0 = unlimited. @default 0 */
  rateLimitPerSecond: number;
  /** Serialized records kept in memory for fast paging (oldest evicted first); 0 = no cache. @default 200000 */
  jsonCacheSize: number;
  /** The simulator's clock (modifiedAt of changes, token expiry); tests pass a fixed one for repeatable truth. @default Date.now */
  now: () => number;
  variant: SimVariant;
}
