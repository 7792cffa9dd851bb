import type { Readable } from 'node:stream';
import type { Static, TSchema } from '@sinclair/typebox';
import { driverListItems, singleRecord } from './envelopes.js';
import type { HttpResponse } from './http-transport.js';
import {
  type ListingDefinition,
  type ListingRecord,
  type Page,
  type PageOptions,
  paginate,
} from './paginate.js';
import { assertValid, type RecordBatch, splitRecords } from './record-validation.js';
import type { ApiRequest, RequestCore } from './request-core.js';

/**
 * The answer shapes every typed method is built from: one line per method in the service files.
 * Single records failing validation throw ResponseValidationError; list records are split.
 */
export interface ApiCalls {
  pages<L extends ListingDefinition>(
    listing: L,
    options: PageOptions<L['path']>,
  ): AsyncGenerator<Page<ListingRecord<L>>, void, undefined>;
  /** A Driver API list (spec 2.1) with its records validated. */
  list<S extends TSchema>(schema: S, request: ApiRequest): Promise<RecordBatch<Static<S>>>;
  /** A single resource, required and validated. */
  record<S extends TSchema>(schema: S, request: ApiRequest): Promise<Static<S>>;
  /** A write answering the record it wrote, or nothing (204 or an empty body). */
  write<S extends TSchema>(schema: S, request: ApiRequest): Promise<Static<S> | undefined>;
  /** A write whose answer carries nothing of use (spec 4.1: "empty"); any body is read and dropped. */
  send(request: ApiRequest): Promise<void>;
  stream<T>(request: ApiRequest, consume: (response: HttpResponse<Readable>) => Promise<T>): Promise<T>;
}

export function createApiCalls(core: RequestCore): ApiCalls {
  const target = (request: ApiRequest) => ({ method: request.method, path: request.path });
  const record = async <S extends TSchema>(schema: S, request: ApiRequest) =>
    assertValid(
      schema,
      singleRecord(await core.json(request), target(request)),
      'the record',
      target(request),
    );
  return {
    pages: (listing, options) => paginate(core, listing, options),
    list: async (schema, request) =>
      splitRecords(schema, driverListItems(await core.json(request), target(request))),
    record,
    write: async (schema, request) => {
      const body = await core.json(request);
      if (body === undefined) return undefined;
      return assertValid(schema, singleRecord(body, target(request)), 'the written record', target(request));
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
  signal?: AbortSignal | undefined;
}

/** Per-call options of Driver API methods: the operator is required unless the token names one (spec 5). */
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
