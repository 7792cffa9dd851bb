import type { ClientStore } from '../data/client-store.js';
import type { SimData } from '../data/sim-data.js';
import type { Picker } from '../seeded-random.js';
import type { RecordTable } from '../tables/record-table.js';
import type { SimChange } from './sim-change.js';

/** A kind of change on one stream, with its share of the random draws. */
export interface ChangeCandidate {
  readonly stream: string;
  readonly kind: string;
  readonly weight: number;
  /** Applies the change to a random fitting record; undefined when none fits this time. */
  apply(pick: Picker): SimChange | undefined;
}

/** A random record that exists and passes `accept`, found within a few draws. */
function randomIndex<T>(
  table: RecordTable<T>,
  pick: Picker,
  accept: (state: T) => boolean,
): number | undefined {
  const size = table.size();
  for (let attempt = 0; size > 0 && attempt < 30; attempt++) {
    const index = pick.int(0, size - 1);
    const state = table.get(index);
    if (state !== undefined && accept(state)) return index;
  }
  return undefined;
}

export function restChangeCandidates({ invoices, clients }: SimData): ChangeCandidate[] {
  const invoiceWith = (pick: Picker, ...statuses: string[]) =>
    randomIndex(invoices.table, pick, (state) => statuses.includes(state.invoice.status));
  const liveClient = (pick: Picker, need: 'contacts' | 'entries' | 'none' = 'none') =>
    randomIndex(
      clients.table,
      pick,
      (state) => state.client.status === 'active' && (need === 'none' || state[need].length > 0),
    );
  const invoiceChange = (
    kind: string,
    weight: number,
    statuses: string[],
    act: (index: number, pick: Picker) => void,
  ) =>
    candidate('invoices', kind, weight, (pick) => {
      const index = invoiceWith(pick, ...statuses);
      if (index === undefined) return undefined;
      act(index, pick);
      return { kind, stream: 'invoices', id: invoices.ids.format(index) };
    });
  const clientChange = (kind: string, weight: number, act: (index: number, pick: Picker) => void) =>
    candidate('clients', kind, weight, (pick) => {
      const index = liveClient(pick);
      if (index === undefined) return undefined;
      act(index, pick);
      return { kind, stream: 'clients', id: clients.ids.format(index) };
    });

  return [
    candidate('invoices', 'create', 5, () => ({
      kind: 'create',
      stream: 'invoices',
      id: invoices.ids.format(invoices.create()),
    })),
    invoiceChange('update', 9, ['preliminary', 'finalized'], (index, pick) =>
      invoices.patch(index, { notes: `Changed note ${pick.int(1, 1_000_000)}` }),
    ),
    invoiceChange('finalize', 5, ['preliminary'], (index) => invoices.finalize(index)),
    invoiceChange('cancel', 3, ['finalized'], (index) => invoices.cancel(index)),
    invoiceChange('softDelete', 4, ['preliminary'], (index) => invoices.softDelete(index)),
    invoiceChange('hardDelete', 2, ['preliminary', 'finalized', 'cancelled', 'deleted'], (index) =>
      invoices.hardDelete(index),
    ),
    candidate('invoice_lines', 'update', 4, (pick) => {
      const index = invoiceWith(pick, 'preliminary');
      if (index === undefined) return undefined;
      const quantity = pick.int(1, 40);
      invoices.patch(index, {
        lines: [{ description: 'Extra stop', productCode: 'STOP', quantity, unitPrice: 35, vatRate: 21 }],
      });
      const id = invoices.ids.format(index);
      return { kind: 'update', stream: 'invoice_lines', id, scope: id };
    }),
    candidate('invoice_payments', 'create', 6, (pick) => {
      const index = invoiceWith(pick, 'finalized');
      if (index === undefined) return undefined;
      const payment = invoices.addPayment(index, {
        amount: pick.int(100, 100_000) / 100,
        date: invoices.today(),
        reference: `BANK-${pick.int(1_000_000, 9_999_999)}`,
      });
      return {
        kind: 'create',
        stream: 'invoice_payments',
        id: payment.record.id,
        scope: payment.record.invoiceId,
      };
    }),
    candidate('invoice_payments', 'hardDelete', 3, (pick) => {
      const index = randomIndex(
        invoices.table,
        pick,
        (state) => state.invoice.status === 'finalized' && state.payments.length > 0,
      );
      if (index === undefined) return undefined;
      const payment = pick.pick(invoices.table.get(index)!.payments).record;
      invoices.removePayment(index, payment.id);
      return { kind: 'hardDelete', stream: 'invoice_payments', id: payment.id, scope: payment.invoiceId };
    }),
    candidate('clients', 'create', 3, (pick) => {
      const index = clients.create({
        name: `New client ${pick.int(1, 1_000_000)}`,
        email: '',
        phone: '',
        vatNumber: '',
        address: {
          street: 'Nieuwstraat',
          houseNumber: '1',
          postalCode: '1000 AA',
          city: 'Amsterdam',
          country: 'NL',
        },
        categories: [],
      });
      return { kind: 'create', stream: 'clients', id: clients.ids.format(index) };
    }),
    clientChange('update', 7, (index, pick) => {
      const client = clients.table.get(index)!.client;
      clients.update(index, { ...client, phone: `+31 20 ${pick.int(1_000_000, 9_999_999)}` });
    }),
    clientChange('softDelete', 3, (index) => clients.softDelete(index)),
    candidate('clients', 'hardDelete', 2, (pick) => {
      const index = randomIndex(clients.table, pick, () => true);
      if (index === undefined) return undefined;
      clients.hardDelete(index);
      return { kind: 'hardDelete', stream: 'clients', id: clients.ids.format(index) };
    }),
    ...clientChildCandidates(clients, liveClient),
  ];
}

function clientChildCandidates(
  clients: ClientStore,
  liveClient: (pick: Picker, need?: 'contacts' | 'entries') => number | undefined,
): ChangeCandidate[] {
  const childChange = (
    stream: string,
    kind: string,
    weight: number,
    need: 'contacts' | 'entries' | undefined,
    act: (index: number, pick: Picker) => string,
  ) =>
    candidate(stream, kind, weight, (pick) => {
      const index = liveClient(pick, need);
      if (index === undefined) return undefined;
      return { kind, stream, id: act(index, pick), scope: clients.ids.format(index) };
    });
  const someNumber = (index: number, pick: Picker, kind: 'contacts' | 'entries') =>
    pick.pick<{ number: number }>(clients.table.get(index)![kind]).number;
  return [
    childChange(
      'client_contacts',
      'create',
      4,
      undefined,
      (index, pick) =>
        clients.addContact(index, { name: `Contact ${pick.int(1, 1_000_000)}`, role: 'planner' }).record.id,
    ),
    childChange('client_contacts', 'update', 4, 'contacts', (index, pick) => {
      const number = someNumber(index, pick, 'contacts');
      clients.updateContact(index, number, { phone: `+31 6 ${pick.int(10_000_000, 99_999_999)}` });
      return clients.table.get(index)!.contacts.find((contact) => contact.number === number)!.record.id;
    }),
    childChange('addressbook', 'create', 5, undefined, (index, pick) => clients.addEntry(index, pick)),
    childChange('addressbook', 'update', 6, 'entries', (index, pick) => {
      const number = someNumber(index, pick, 'entries');
      clients.updateEntry(index, number, { name: `Dock ${pick.int(1, 99)}` });
      return entryId(clients, index, number);
    }),
    childChange('addressbook', 'hardDelete', 2, 'entries', (index, pick) => {
      const number = someNumber(index, pick, 'entries');
      const id = entryId(clients, index, number);
      clients.removeEntry(index, number);
      return id;
    }),
  ];
}

function entryId(clients: ClientStore, index: number, number: number): string {
  return clients.table.get(index)!.entries.find((entry) => entry.number === number)!.record.id;
}

function candidate(
  stream: string,
  kind: string,
  weight: number,
  apply: ChangeCandidate['apply'],
): ChangeCandidate {
  return { stream, kind, weight, apply };
}
