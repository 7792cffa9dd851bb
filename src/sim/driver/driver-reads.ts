import { SimHttpError } from '../sim-http-error.js';
import type { DriverData, OperatorData } from './driver-data.js';
import {
  dossierFolder,
  listActivities,
  listChatMessages,
  listClientPackagingBalances,
  listGoods,
  listQuestionnaires,
  listTaskPackagingBalances,
  listTasks,
  planningOf,
} from './driver-listings.js';
import { booleanParam, idsParam, momentParam, type Query, queryParam } from './query-params.js';
import { notFound } from './validate-body.js';

/** What a read gets besides the data. */
export interface ReadInput {
  readonly query: Query;
  readonly params: Readonly<Record<string, string>>;
}

type Items = readonly unknown[];

/**
 * A Driver API GET answering JSON in the list envelope; single objects (settings, version, logo,
 * planning, dossier folder) are lists of one. `headers` adds response headers after a read.
 */
export type ReadRoute = {
  readonly path: string;
  /** The catalogue stream its records are served as (their record shapes, records/record-shapes.ts). */
  readonly stream: string;
  headers?(query: Query): Record<string, string>;
} & (
  | { readonly scope: 'operator'; read(data: DriverData, operator: OperatorData, input: ReadInput): Items }
  | { readonly scope: 'global'; read(data: DriverData, input: ReadInput): Items }
);

const global = (
  path: string,
  stream: string,
  read: (data: DriverData, input: ReadInput) => Items,
): ReadRoute => ({ path, stream, scope: 'global', read });

const perOperator = (
  path: string,
  stream: string,
  read: (data: DriverData, operator: OperatorData, input: ReadInput) => Items,
): ReadRoute => ({ path, stream, scope: 'operator', read });

/** Every JSON GET of docs/api.md, Operations (the binary dossier download is in dossier-routes). */
export const driverReads: readonly ReadRoute[] = [
  perOperator('/driver-api/rides/', 'rides', (_, operator) => [...operator.rides.values()]),
  perOperator('/driver-api/tasks/', 'tasks', (_, operator, { query }) =>
    listTasks(operator, idsParam(query, false)),
  ),
  perOperator('/driver-api/tasks/packaging-balances', 'task_packaging_balances', (_, operator, { query }) =>
    listTaskPackagingBalances(operator, idsParam(query, true)!),
  ),
  perOperator('/driver-api/goods/', 'goods', (_, operator, { query }) =>
    listGoods(operator, idsParam(query, true)!),
  ),
  perOperator('/driver-api/clients/packaging-balances', 'client_packaging_balances', (data, _, { query }) =>
    listClientPackagingBalances(data, idsParam(query, true)!),
  ),
  perOperator('/driver-api/settings/', 'settings', (_, operator) => [operator.settings]),
  perOperator(
    '/driver-api/settings/color-profile',
    'color_profiles',
    (_, operator) => operator.colorProfiles,
  ),
  perOperator('/driver-api/chat/messages', 'chat_messages', (_, operator, { query }) => {
    const from = momentParam(query, 'fromMoment');
    const to = momentParam(query, 'toMoment');
    if (from > to) throw new SimHttpError(400, 'bad_request', 'fromMoment is after toMoment');
    return listChatMessages(operator, from, to);
  }),
  {
    ...perOperator('/driver-api/planning/', 'planning', (_, operator, { query }) => {
      const use = queryParam(query, 'use');
      if (use !== undefined && use !== 'legacy') {
        throw new SimHttpError(400, 'bad_request', 'query parameter use only takes the value legacy', {
          use,
        });
      }
      return [planningOf(operator)];
    }),
    // The older data path gives the same content; the header lets tests see which path answered.
    headers: (query): Record<string, string> => (query.use === 'legacy' ? { 'x-data-path': 'legacy' } : {}),
  },
  global('/driver-api/vehicles/', 'vehicles', (data) => data.master.vehicles),
  global('/driver-api/trailers/', 'trailers', (data) => data.master.trailers),
  global('/driver-api/logo/:id', 'logo', (data, { params }) => {
    const logo = data.master.logos.find((candidate) => String(candidate.id) === params.id);
    if (!logo) throw notFound('logo', params.id!);
    return [logo];
  }),
  global('/driver-api/settings/version', 'tms_version', (data) => [data.master.version]),
  global('/driver-api/contacts', 'driver_contacts', (data) => data.master.driverContacts),
  global('/driver-api/trace-types', 'trace_types', (data) => data.master.traceTypes),
  global('/driver-api/packaging', 'packaging', (data) => data.master.packaging),
  global('/driver-api/completion-statuses', 'completion_statuses', (data) => data.master.completionStatuses),
  global('/driver-api/activities/', 'activities', (data) => listActivities(data.master)),
  global('/driver-api/chat/contacts', 'chat_contacts', (data) => data.master.chatContacts),
  global('/driver-api/questionnaires/', 'questionnaires', (data, { query }) =>
    listQuestionnaires(data.master, booleanParam(query, 'latest')),
  ),
  global('/driver-api/dossier/orders/:id', 'dossier_folders', (data, { params }) => {
    const folder = dossierFolder(data, params.id!);
    if (!folder) throw notFound('order', params.id!);
    return [folder];
  }),
];
