import type { SimData } from '../data/sim-data.js';
import type { DriverSim } from '../driver/driver-sim.js';
import type { ListingSource } from '../listing/listing-source.js';
import { SimHttpError } from '../sim-http-error.js';

/** The REST streams of docs/streams.md whose truth the core answers (the Driver API adds its own). */
export const restStreams = [
  'invoices',
  'invoice_lines',
  'invoice_payments',
  'clients',
  'client_contacts',
  'client_addressbook',
  'addressbook',
] as const;

type ScopeParts = Map<string, { records: string[]; deletedIds: string[] }>;

/**
 * `GET /_sim/truth` as JSON text (StreamTruth): per stream and scope the records that exist, exactly
 * as the listings return them, and the ids that are soft-deleted. Child streams have a scope per
 * parent that is neither soft- nor hard-deleted. Built from cached record JSON, never re-serialized.
 */
export function buildTruth(data: SimData, driver: DriverSim, stream?: string): string {
  const driverTruth = driver.truth();
  const wanted = stream === undefined ? [...restStreams, ...Object.keys(driverTruth)] : [stream];
  const parts: string[] = [];
  for (const name of wanted) {
    if ((restStreams as readonly string[]).includes(name))
      parts.push(streamJson(name, restTruth(data, name)));
    else if (driverTruth[name]) parts.push(`${JSON.stringify(name)}:${JSON.stringify(driverTruth[name])}`);
    else throw new SimHttpError(404, 'not_found', `no stream ${name}`);
  }
  return `{${parts.join(',')}}`;
}

function restTruth(data: SimData, stream: string): ScopeParts {
  const { invoices, clients } = data;
  switch (stream) {
    case 'invoices':
      return topLevel(invoices.listing(), invoices.ids.format);
    case 'clients':
      return topLevel(clients.listing(), clients.ids.format);
    case 'addressbook':
      return new Map([['', { records: allJson(clients.globalAddressbook()), deletedIds: [] }]]);
    case 'invoice_lines':
      return children(invoices.listing(), invoices.ids.format, (index) => invoices.linesJson(index));
    case 'invoice_payments':
      return children(invoices.listing(), invoices.ids.format, (index) => allJson(invoices.payments(index)));
    case 'client_contacts':
      return children(clients.listing(), clients.ids.format, (index) => allJson(clients.contacts(index)));
    default:
      return children(clients.listing(), clients.ids.format, (index) => allJson(clients.addressbook(index)));
  }
}

function topLevel(source: ListingSource, idOf: (index: number) => string): ScopeParts {
  const deletedIds: string[] = [];
  source.scan(-1, { status: 'deleted' }, (index) => deletedIds.push(idOf(index)) > 0);
  return new Map([['', { records: allJson(source), deletedIds }]]);
}

function children(
  parents: ListingSource,
  idOf: (index: number) => string,
  records: (index: number) => string[],
): ScopeParts {
  const scopes: ScopeParts = new Map();
  parents.scan(
    -1,
    {},
    (index) => scopes.set(idOf(index), { records: records(index), deletedIds: [] }) !== undefined,
  );
  return scopes;
}

function allJson(source: ListingSource): string[] {
  const records: string[] = [];
  source.scan(-1, {}, (position) => records.push(source.json(position)) > 0);
  return records;
}

function streamJson(name: string, scopes: ScopeParts): string {
  const entries = [...scopes].map(
    ([scope, part]) =>
      `${JSON.stringify(scope)}:{"records":[${part.records.join(',')}],"deletedIds":${JSON.stringify(part.deletedIds)}}`,
  );
  return `${JSON.stringify(name)}:{${entries.join(',')}}`;
}
