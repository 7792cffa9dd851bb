import { perRecord } from './shape-hash.js';
import { recordIdentity } from './shape-rules.js';

type Json = Record<string, unknown>;
type Reshape = (record: Json) => Json;

/** The alt TMS is one fixed TMS: its per-record choices use one seed, whatever `recordShapesSeed` says. */
const altSeed = 0xa17;

/** True for about `share` of the stream's records, the same record always alike. */
const sometimes = (stream: string, record: Json, what: string, share: number) =>
  perRecord(altSeed, recordIdentity(stream, record), what, share);

/** Money as a TMS that sends strings with two decimals would. */
const money = (value: unknown) => (typeof value === 'number' ? value.toFixed(2) : value);

const withoutKeys = (record: Json, ...keys: string[]): Json =>
  Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));

function invoice(record: Json): Json {
  const totals = (record.totals ?? {}) as Json;
  // This TMS sends amounts as strings for invoices it imported from an older system.
  const amount = sometimes('invoices', record, 'imported', 1 / 3) ? money : (value: unknown) => value;
  return {
    ...withoutKeys(record, 'notes', 'totals', 'paidAmount'),
    note: record.notes,
    totalExclVat: amount(totals.net),
    vatAmount: amount(totals.vat),
    totalInclVat: amount(totals.gross),
    paid: { amount: money(record.paidAmount), currency: record.currency },
    dunningLevel: 0,
  };
}

function task(record: Json): Json {
  const address = (record.address ?? {}) as Json;
  const location = (address.location ?? {}) as Json;
  const reshaped: Json = {
    ...record,
    address: { ...address, location: withoutKeys(location, 'number') },
    status: sometimes('tasks', record, 'onHold', 1 / 7) ? 'onHold' : record.status,
  };
  return sometimes('tasks', record, 'unplanned', 1 / 3) ? withoutKeys(reshaped, 'planned') : reshaped;
}

const addressbookEntry: Reshape = (entry) => ({ ...entry, geo: entry.location ?? null });

/**
 * `--record-shapes alt`: one other TMS, written by hand in the spirit of the one tms-sync first met
 * outside tms-sim (docs/simulator.md): other names, flat totals, amounts as strings, objects where
 * tms-sim has strings, fields missing, new fields, a task status outside docs/api.md's list. Every key
 * and the fields other streams are fetched by are kept (shape-rules.ts). Streams without an entry
 * are served in tms-sim's shape; the planning's tasks, rides and goods take theirs (record-shapes.ts).
 */
export const altShapes: Readonly<Record<string, Reshape>> = {
  invoices: invoice,
  invoice_lines: (line) => ({
    ...withoutKeys(line, 'unitPrice', 'amount'),
    price: money(line.unitPrice),
    lineTotal: money(line.amount),
  }),
  invoice_payments: (payment) => ({ ...payment, amount: money(payment.amount), method: 'bank' }),
  clients: (client) => {
    const address = (client.address ?? {}) as Json;
    const country = address.country;
    return {
      ...client,
      address: { ...address, country: { code: country, name: `Country ${String(country)}` } },
      labels: ['alt'],
    };
  },
  client_contacts: (contact) => ({ ...withoutKeys(contact, 'email'), emails: [contact.email] }),
  addressbook: addressbookEntry,
  client_addressbook: addressbookEntry,
  tasks: task,
  rides: (ride) => ({ ...withoutKeys(ride, 'number', 'planned'), schedule: ride.planned ?? null }),
  goods: (good) => ({ ...withoutKeys(good, 'weightKg'), weight: { value: good.weightKg, unit: 'kg' } }),
  chat_messages: (message) => ({
    ...withoutKeys(message, 'fromId', 'sentAt'),
    sender: { id: message.fromId },
    createdAt: message.sentAt,
  }),
  activities: (activity) => withoutKeys(activity, 'code'),
  completion_statuses: (status) => ({
    ...withoutKeys(status, 'isSuccess'),
    outcome: status.isSuccess ? 'ok' : 'failed',
  }),
  settings: (settings) => withoutKeys(settings, 'distanceUnit'),
  vehicles: (vehicle) => ({ ...vehicle, fuel: { type: 'diesel', tankLiters: 400 } }),
  packaging: (packaging) => ({ ...packaging, isCarrier: packaging.isCarrier ? 1 : 0 }),
};
