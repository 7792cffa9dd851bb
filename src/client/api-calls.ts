import type { Readable } from 'node:stream';
import type { JsonObject } from '../../schemas/json-object.js';
import type { StopSignal } from '../linked-signals.js';
import type { ApiRequest } from './api-request.js';
import { driverListItems, singleRecord } from './envelope-checks.js';
import type { HttpResponse } from './http-transport.js';
import { type ListingDefinition, type Page, type PageOptions, paginate } from './paginate.js';
import { parseJsonBody } from './read-body.js';
import type { RequestCore } from './request-core.js';
import { recordObject, recordObjects } from './response-checks.js';

/**
 * The answer shapes every typed method is built from: one line per method in the service files.
 * Envelopes are checked strictly; records only for being JSON objects (docs/records.md).
 */
export interface ApiCalls {
  pages<L extends ListingDefinition>(
    listing: L,
    options: PageOptions<L['path']>,
  ): AsyncGenerator<Page, void, undefined>;
  /** The records of a Driver API list (docs/api.md, Envelopes), envelope checked. */
  list(request: ApiRequest): Promise<JsonObject[]>;
  /** A single resource, required to be a JSON object. */
  record(request: ApiRequest): Promise<JsonObject>;
  /**
   * A Driver API list (or, `single`, a single resource) as received: its bytes, and its records
   * checked as `list` (`record`) checks them, on demand. An answer equal to the byte to one checked
   * before holds the same records, so it need not be parsed again.
   */
  answer(request: ApiRequest, single?: boolean): Promise<ReceivedAnswer>;
  /** A write answering the record it wrote, or nothing (204 or an empty body). */
  write(request: ApiRequest): Promise<JsonObject | undefined>;
  /** A write whose answer carries nothing of use (docs/api.md, Operations: "empty"); any body is read and dropped. */
  send(request: ApiRequest): Promise<void>;
  stream<T>(request: ApiRequest, consume: (response: HttpResponse<Readable>) => Promise<T>): Promise<T>;
}

/** An answer as received (api-calls.ts `answer`). */
export interface ReceivedAnswer {
  readonly bytes: Buffer;
  /** Parses and checks the answer; throws what `list` or `record` would have thrown. */
  records(): JsonObject[];
}

export function createApiCalls(core: RequestCore): ApiCalls {
  const target = (request: ApiRequest) => ({ method: request.method, path: request.path });
  const listOf = (body: unknown, request: ApiRequest) =>
    recordObjects(driverListItems(body, target(request)), target(request));
  const recordOf = (body: unknown, request: ApiRequest) =>
    recordObject(singleRecord(body, target(request)), target(request));
  const record = async (request: ApiRequest) => recordOf(await core.json(request), request);
  return {
    pages: (listing, options) => paginate(core, listing, options),
    list: async (request) => listOf(await core.json(request), request),
    record,
    answer: async (request, single = false) => {
      const bytes = await core.bytes(request);
      return {
        bytes,
        records: () => {
          const { value } = parseJsonBody(bytes, target(request));
          return single ? [recordOf(value, request)] : listOf(value, request);
        },
      };
    },
    write: async (request) => {
      const body = await core.json(request);
      if (body === undefined) return undefined;
      return recordObject(singleRecord(body, target(request)), target(request));
    },
    send: (request) =>
      core.stream(request, async ({ body }) => {
        for await (const _chunk of body) {
          // drained so the connection can be reused
        }
      }),
    stream: (request, consume) => core.stream(request, consume),
  };
}

/** Per-call options of every typed method. */
export interface CallOptions {
  signal?: StopSignal | undefined;
}

/** Per-call options of Driver API methods: the operator is required unless the token names one (docs/api.md, Authentication). */
export interface DriverCallOptions extends CallOptions {
  operatorId?: string | undefined;
}

type RequestExtras = Pick<ApiRequest, 'query' | 'body' | 'idempotent' | 'headers'>;

/** An invoice or client service request with the access token. */
export function restRequest(
  method: ApiRequest['method'],
  path: string,
  call: CallOptions = {},
  body?: unknown,
): ApiRequest {
  return { method, path, body, auth: 'rest', signal: call.signal };
}

/** A Driver API request: driver token when configured, else the access token plus `operatorId`. */
export function driverRequest(
  method: ApiRequest['method'],
  path: string,
  call: DriverCallOptions = {},
  extras: RequestExtras = {},
): ApiRequest {
  return { method, path, auth: 'driver', operatorId: call.operatorId, signal: call.signal, ...extras };
}
