import type { JsonObject } from '../../schemas/json-object.js';
import type { StopSignal } from '../linked-signals.js';
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
import type { ListingDefinition, Page, PageOptions } from './paginate.js';
import { createRequestCore } from './request-core.js';
import { buildPath, type QueryParams } from './request-path.js';

/** A Driver API resource described as data, e.g. a snapshot entry of config/streams.ts. */
export interface ResourceDefinition {
  readonly path: string;
}

/** Options of the catalogue-driven Driver API reads. */
export interface ResourceCall extends DriverCallOptions {
  /** Values of the path's `{name}` placeholders. @default {} */
  pathParams?: Readonly<Record<string, string | number>>;
  query?: QueryParams;
}

type ListingOf<L> = L extends ListingName ? (typeof listings)[L] : L extends ListingDefinition ? L : never;

/**
 * The typed TMS client: one keep-alive undici Pool per client (one origin), login and token renewal,
 * the retry policy, envelope checks, paging, and a method per operation of docs/api.md, Operations. Records are
 * returned as the TMS sends them (JSON objects; docs/records.md).
 * Call `close()` when done.
 */
export function createTmsClient(options: TmsClientOptions) {
  const resolved = resolveClientOptions(options);
  const transport = createHttpTransport(resolved);
  const core = createRequestCore(transport, resolved);
  const api = createApiCalls(core);
  return {
    ...createInvoiceService(api),
    ...createClientService(api),
    ...createDriverPlanningService(api),
    ...createDriverReferenceService(api),
    ...createDriverMessagingService(api),
    /** Pages of a listing, by catalogue name (`listings`) or as a `{path}` definition. */
    pages: <L extends ListingName | ListingDefinition>(
      listing: L,
      pageOptions: PageOptions<ListingOf<L>['path']>,
    ): AsyncGenerator<Page, void, undefined> => api.pages(resolveListing(listing), pageOptions),
    /** The records of a Driver API list (docs/api.md, Envelopes) described as data; the envelope is checked. */
    driverList: (resource: ResourceDefinition, call: ResourceCall = {}): Promise<JsonObject[]> =>
      api.list(resourceRequest(resource, call)),
    /** A single Driver API resource described as data (settings, planning, a dossier folder, ...). */
    driverRecord: (resource: ResourceDefinition, call: ResourceCall = {}): Promise<JsonObject> =>
      api.record(resourceRequest(resource, call)),
    /**
     * A Driver API list, or with `single` a single resource, as received: parsed and checked only
     * when its records are asked for (api-calls.ts `answer`).
     */
    driverAnswer: (resource: ResourceDefinition, call: ResourceCall = {}, single = false) =>
      api.answer(resourceRequest(resource, call), single),
    /** A single REST resource by path template, e.g. an invoice's detail with its lines. */
    restRecord: (
      pathTemplate: string,
      pathParams: Readonly<Record<string, string | number>>,
      call: CallOptions = {},
    ): Promise<JsonObject> => api.record(restRequest('GET', buildPath(pathTemplate, pathParams), call)),
    /**
     * The first contact: until a login has succeeded, one login sent once, never retried, so a
     * wrong base URL or token shows at once; its error is thrown as it is (auth-session.ts).
     */
    checkLogin: (signal?: StopSignal): Promise<void> => core.checkLogin(signal),
    /** The origin's circuit breaker as it stands (origin-health.ts). */
    health: () => core.health(),
    /** Requests, retries, 429s, in flight and the adaptive limit, budget waits (request-core.ts). */
    traffic: () => core.traffic(),
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

function resourceRequest(resource: ResourceDefinition, call: ResourceCall) {
  return driverRequest('GET', buildPath(resource.path, call.pathParams ?? {}), call, { query: call.query });
}
