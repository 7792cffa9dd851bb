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
export type ReadRoute = { readonly path: string; headers?(query: Query): Record<string, string> } & (
  | { readonly scope: 'operator'; read(data: DriverData, operator: OperatorData, input: ReadInput): Items }
  | { readonly scope: 'global'; read(data: DriverData, input: ReadInput): Items }
);

const global = (path: string, read: (data: DriverData, input: ReadInput) => Items): ReadRoute => ({
  path,
  scope: 'global',
  read,
});

const perOperator = (
  path: string,
  read: (data: DriverData, operator: OperatorData, input: ReadInput) => Items,
): ReadRoute => ({ path, scope: 'operator', read });

/** Every JSON GET of spec 4.1 (the binary dossier download is in dossier-routes). */
export const driverReads: readonly ReadRoute[] = [
  perOperator('/driver-api/rides/', (_, operator) => [...operator.rides.values()]),
  perOperator('/driver-api/tasks/', (_, operator, { query }) => listTasks(operator, idsParam(query, false))),
  perOperator('/driver-api/tasks/packaging-balances', (_, operator, { query }) =>
    listTaskPackagingBalances(operator, idsParam(query, true)!),
  ),
  perOperator('/driver-api/goods/', (_, operator, { query }) => listGoods(operator, idsParam(query, true)!)),
  perOperator('/driver-api/clients/packaging-balances', (data, _, { query }) =>
    listClientPackagingBalances(data, idsParam(query, true)!),
  ),
  perOperator('/driver-api/settings/', (_, operator) => [operator.settings]),
  perOperator('/driver-api/settings/color-profile', (_, operator) => operator.colorProfiles),
  perOperator('/driver-api/chat/messages', (_, operator, { query }) => {
    const from = momentParam(query, 'fromMoment');
    const to = momentParam(query, 'toMoment');
    if (from > to) throw new SimHttpError(400, 'bad_request', 'fromMoment is after toMoment');
    return listChatMessages(operator, from, to);
  }),
  {
    ...perOperator('/driver-api/planning/', (_, operator, { query }) => {
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
  global('/driver-api/vehicles/', (data) => data.master.vehicles),
  global('/driver-api/trailers/', (data) => data.master.trailers),
  global('/driver-api/logo/:id', (data, { params }) => {
    const logo = data.master.logos.find((candidate) => String(candidate.id) === params.id);
    if (!logo) throw notFound('logo', params.id!);
    return [logo];
  }),
  global('/driver-api/settings/version', (data) => [data.master.version]),
  global('/driver-api/contacts', (data) => data.master.driverContacts),
  global('/driver-api/trace-types', (data) => data.master.traceTypes),
  global('/driver-api/packaging', (data) => data.master.packaging),
  global('/driver-api/completion-statuses', (data) => data.master.completionStatuses),
  global('/driver-api/activities/', (data) => listActivities(data.master)),
  global('/driver-api/chat/contacts', (data) => data.master.chatContacts),
  global('/driver-api/questionnaires/', (data, { query }) =>
    listQuestionnaires(data.master, booleanParam(query, 'latest')),
  ),
  global('/driver-api/dossier/orders/:id', (data, { params }) => {
    const folder = dossierFolder(data, params.id!);
    if (!folder) throw notFound('order', params.id!);
    return [folder];
  }),
];
