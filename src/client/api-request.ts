import type { StopSignal } from '../linked-signals.js';
import type { HttpMethod } from './http-transport.js';
import type { QueryParams } from './request-path.js';

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
  readonly signal?: StopSignal | undefined;
}
