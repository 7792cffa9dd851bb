import type { SimHandle } from '../../src/sim/start-sim.js';
import type { StreamTruth } from '../../src/sim/stream-truth.js';
import { call, login, pageThrough } from './sim-test-client.js';

type Json = Record<string, unknown>;

/** Stream -> scope -> records, as a client reads them (the shape of a truth without deletedIds). */
export type Served = Record<string, Record<string, Json[]>>;

const seg = encodeURIComponent;
const operator = '1001';

/** The records of a truth in the same form, to compare with what was served. */
export function truthRecords(truth: StreamTruth): Served {
  return Object.fromEntries(
    Object.entries(truth).map(([stream, scopes]) => [
      stream,
      Object.fromEntries(Object.entries(scopes).map(([scope, part]) => [scope, part.records as Json[]])),
    ]),
  );
}

/**
 * Every stream of a simulator with one operator (`1001`), read as the sync reads it: the REST
 * listings from since=1 in small pages, every live parent's children, the Driver API lists, the
 * goods, balances and dossier folders by the ids the served tasks name.
 */
export async function readEveryStream(sim: SimHandle): Promise<Served> {
  const token = await login(sim);
  const listing = async (path: string) =>
    (await pageThrough(sim, path, token, 'since=1&limit=7')).flatMap((page) => page.items ?? []) as Json[];
  const invoices = await listing('/invoice/invoices/');
  const clients = await listing('/client/clients/');
  const perParent = async (parents: Json[], read: (id: string) => Promise<Json[]>) =>
    Object.fromEntries(
      await Promise.all(parents.map(async (parent) => [String(parent.id), await read(String(parent.id))])),
    );
  const detail = async (id: string) =>
    (await call(sim, `/invoice/invoices/${seg(id)}`, { token })).json.data.lines as Json[];
  return {
    invoices: { '': invoices },
    clients: { '': clients },
    addressbook: { '': await listing('/client/addressbook/') },
    invoice_lines: await perParent(invoices, detail),
    invoice_payments: await perParent(invoices, (id) => listing(`/invoice/invoices/${seg(id)}/payments`)),
    client_contacts: await perParent(clients, (id) => listing(`/client/clients/${seg(id)}/contacts`)),
    client_addressbook: await perParent(clients, (id) => listing(`/client/clients/${seg(id)}/addressbook`)),
    ...(await readDriverStreams(sim, token)),
  };
}

async function readDriverStreams(sim: SimHandle, token: string): Promise<Served> {
  const items = async (path: string) => {
    const answer = await call(sim, path, { token });
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.text}`);
    return answer.json.data.items as Json[];
  };
  const mine = (path: string, query = '') => items(`${path}?operatorId=${operator}${query}`);
  const tasks = await mine('/driver-api/tasks/');
  const ids = (read: (task: Json) => unknown[]) => seg([...new Set(tasks.flatMap(read))].join(','));
  const orders = [...new Set(tasks.map((task) => String((task.order as Json).id)))];
  const global = async (path: string) => ({ '': await items(path) });
  return {
    tasks: { [operator]: tasks },
    rides: { [operator]: await mine('/driver-api/rides/') },
    planning: { [operator]: await mine('/driver-api/planning/') },
    goods: {
      [operator]: await mine(
        '/driver-api/goods/',
        `&ids=${ids((task) => (task.goods as Json[]).map((good) => good.id))}`,
      ),
    },
    task_packaging_balances: {
      [operator]: await mine('/driver-api/tasks/packaging-balances', `&ids=${ids((task) => [task.id])}`),
    },
    client_packaging_balances: {
      [operator]: await mine(
        '/driver-api/clients/packaging-balances',
        `&ids=${ids((task) => [(task.client as Json).id])}`,
      ),
    },
    chat_messages: {
      [operator]: await mine(
        '/driver-api/chat/messages',
        '&fromMoment=2000-01-01T00:00:00Z&toMoment=2100-01-01T00:00:00Z',
      ),
    },
    settings: { [operator]: await mine('/driver-api/settings/') },
    color_profiles: { [operator]: await mine('/driver-api/settings/color-profile') },
    dossier_folders: {
      [operator]: (
        await Promise.all(orders.map((id) => mine(`/driver-api/dossier/orders/${seg(id)}`)))
      ).flat(),
    },
    vehicles: await global('/driver-api/vehicles/'),
    trailers: await global('/driver-api/trailers/'),
    trace_types: await global('/driver-api/trace-types'),
    packaging: await global('/driver-api/packaging'),
    completion_statuses: await global('/driver-api/completion-statuses'),
    activities: await global('/driver-api/activities/'),
    driver_contacts: await global('/driver-api/contacts'),
    chat_contacts: await global('/driver-api/chat/contacts'),
    questionnaires: await global('/driver-api/questionnaires/?latest=true'),
    tms_version: await global('/driver-api/settings/version'),
  };
}
