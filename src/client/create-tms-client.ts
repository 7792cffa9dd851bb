import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { type RecordName, recordSchemas } from '../../schemas/index.js';
import {
  type ApiCalls,
  type CallOptions,
  createApiCalls,
  type DriverCallOptions,
  driverRequest,
  restRequest,
} from './api-calls.js';
import { resolveClientOptions, type TmsClientOptions } from './client-options.js';
import { createClientService } from './client-service.js';
import { createDriverMessagingService } from './driver-messaging-service.js';
import { createDriverPlanningService } from './driver-planning-service.js';
import { createDriverReferenceService } from './driver-reference-service.js';
import { createHttpTransport } from './http-transport.js';
import { createInvoiceService } from './invoice-service.js';
import { type ListingName, listings } from './listings.js';
import type { ListingDefinition, ListingRecord, Page, PageOptions } from './paginate.js';
import { type RecordBatch, splitRecords } from './record-validation.js';
import { createRequestCore } from './request-core.js';
import { buildPath, type QueryParams } from './request-path.js';

/** A Driver API resource described as data, e.g. a snapshot entry of config/streams.ts. */
export interface ResourceDefinition<R extends RecordName = RecordName> {
  readonly path: string;
  readonly record: R;
}

/** Options of the catalogue-driven Driver API reads. */
export interface ResourceCall extends DriverCallOptions {
  /** Values of the path's `{name}` placeholders. @default {} */
  pathParams?: Readonly<Record<string, string | number>>;
  query?: QueryParams;
}

const anyRecord = Type.Unknown();

type RecordOf<R extends RecordName> = Static<(typeof recordSchemas)[R]>;
type ListingOf<L> = L extends ListingName ? (typeof listings)[L] : L extends ListingDefinition ? L : never;

/**
 * The typed TMS client: one keep-alive undici Pool per client (one origin), login and token renewal,
 * the retry policy, validation, paging, and a method per operation of spec 4.1-4.3.
 * Call `close()` when done.
 */
export function createTmsClient(options: TmsClientOptions) {
  const resolved = resolveClientOptions(options);
  const transport = createHttpTransport(resolved);
  const api = createApiCalls(createRequestCore(transport, resolved));
  return {
    ...createInvoiceService(api),
    ...createClientService(api),
    ...createDriverPlanningService(api),
    ...createDriverReferenceService(api),
    ...createDriverMessagingService(api),
    /** Pages of a listing, by catalogue name (`listings`) or as a `{path, record}` definition. */
    pages: <L extends ListingName | ListingDefinition>(
      listing: L,
      pageOptions: PageOptions<ListingOf<L>['path']>,
    ): AsyncGenerator<Page<ListingRecord<ListingOf<L>>>, void, undefined> =>
      api.pages(resolveListing(listing) as ListingOf<L>, pageOptions),
    /** A Driver API list (spec 2.1) described as data: items validated, envelope checked. */
    driverList: <R extends RecordName>(
      resource: ResourceDefinition<R>,
      call: ResourceCall = {},
    ): Promise<RecordBatch<RecordOf<R>>> => api.list(schemaOf(resource), resourceRequest(resource, call)),
    /** A single Driver API resource described as data (settings, planning, a dossier folder, ...). */
    driverRecord: <R extends RecordName>(
      resource: ResourceDefinition<R>,
      call: ResourceCall = {},
    ): Promise<RecordOf<R>> => api.record(schemaOf(resource), resourceRequest(resource, call)),
    /** A single Driver API resource as a batch of one: an invalid record is rejected, not thrown. */
    driverSingle: async <R extends RecordName>(
      resource: ResourceDefinition<R>,
      call: ResourceCall = {},
    ): Promise<RecordBatch<RecordOf<R>>> =>
      splitRecords(schemaOf(resource), [await api.record(anyRecord, resourceRequest(resource, call))]),
    /** A single REST resource by path template, e.g. an invoice's detail with its lines. */
    restRecord: <S extends TSchema>(
      schema: S,
      pathTemplate: string,
      pathParams: Readonly<Record<string, string | number>>,
      call: CallOptions = {},
    ): Promise<Static<S>> =>
      api.record(schema, restRequest('GET', buildPath(pathTemplate, pathParams), call)),
    /** The low-level calls every typed method is built on, for operations not covered above. */
    api: api satisfies ApiCalls,
    /** Closes the connection pool; requests in flight finish first. */
    close: () => transport.close(),
  };
}

export type TmsClient = ReturnType<typeof createTmsClient>;

function resolveListing(listing: ListingName | ListingDefinition): ListingDefinition {
  return typeof listing === 'string' ? listings[listing] : listing;
}

function schemaOf<R extends RecordName>(resource: ResourceDefinition<R>) {
  return recordSchemas[resource.record] as TSchema as (typeof recordSchemas)[R];
}

function resourceRequest(resource: ResourceDefinition, call: ResourceCall) {
  return driverRequest('GET', buildPath(resource.path, call.pathParams ?? {}), call, { query: call.query });
}
