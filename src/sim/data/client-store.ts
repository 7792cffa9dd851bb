import { childListingSource, type ListingSource, tableListingSource } from '../listing/listing-source.js';
import type { NewClientContact } from '../records/index.js';
import type { RecordShapes } from '../records/record-shapes.js';
import type { Picker } from '../seeded-random.js';
import { SimHttpError } from '../sim-http-error.js';
import { createRecordTable, type RecordTable, recordFlags } from '../tables/record-table.js';
import { baseSequences, type SequenceCounter } from '../tables/sequence-counter.js';
import { createAddressbookSource, entryPosition } from './addressbook-source.js';
import {
  baseClientDeleted,
  type ClientGeneratorOptions,
  type ClientRecord,
  type ClientState,
  type ContactState,
  clientStatusCodes,
  generateClient,
  newEntry,
} from './client-generator.js';
import { childId, type IdFormat } from './id-format.js';
import { withSequence } from './record-time.js';

export interface ClientStoreOptions extends ClientGeneratorOptions {
  count: number;
  /** Where the base sequences of the address-book groups start. */
  groupSequenceStart: number;
  counter: SequenceCounter;
  sequenceField: string;
  jsonCacheSize: number;
  /** The wire form of a record (variant.recordShapes). */
  shapes: RecordShapes;
  now(): number;
}

/** The clients with their contacts and address books (docs/api.md, Operations). */
export interface ClientStore {
  readonly table: RecordTable<ClientState>;
  readonly ids: IdFormat;
  listing(): ListingSource;
  /** Index of the client with this id (soft-deleted ones included); 404 when there is none. */
  find(id: string): number;
  listJson(index: number): string;
  contactJson(contact: ContactState): string;
  create(fields: Omit<ClientRecord, 'id' | 'status' | 'modifiedAt'>): number;
  /** Replaces the client's fields; no change, no new sequence. 409 on a soft-deleted client. */
  update(index: number, client: ClientRecord): void;
  softDelete(index: number): void;
  hardDelete(index: number): void;
  /** A change of nothing but the sequence and modifiedAt (the served JSON changed around the state). */
  touch(index: number): number;
  contacts(index: number): ListingSource;
  addContact(index: number, fields: NewClientContact): ContactState;
  updateContact(index: number, number: number, fields: Partial<NewClientContact>): void;
  addressbook(index: number): ListingSource;
  globalAddressbook(): ListingSource;
  /** Entry changes bump the sequence of the client's whole group, and the client's own. */
  addEntry(index: number, pick: Picker): string;
  updateEntry(index: number, number: number, fields: { name: string }): void;
  removeEntry(index: number, number: number): void;
}

export function createClientStore(options: ClientStoreOptions): ClientStore {
  const { counter, sequenceField, shapes } = options;
  const wire = (stream: string, record: object) =>
    JSON.stringify(shapes(stream, record as Record<string, unknown>));
  const table = createRecordTable<ClientState>({
    baseCount: options.count,
    generate: (index) => generateClient(options, index),
    baseSequences: options.baseSequences,
    baseFlags: (index) => (baseClientDeleted(options.seed, index) ? recordFlags.softDeleted : 0),
    counter,
    jsonCacheSize: options.jsonCacheSize,
  });
  const addressbook = createAddressbookSource({
    table,
    groupSequences: baseSequences(options.count, options.groupSequenceStart, options.seed + 1),
    sequenceField,
    shapes,
    jsonCacheSize: Math.ceil(options.jsonCacheSize / 2),
  });
  const nowIso = () => new Date(options.now()).toISOString();
  const state = (index: number) => table.get(index)!;
  const listJson = (index: number) =>
    table.json(index, (current, sequence) =>
      withSequence(wire('clients', current.client), sequenceField, sequence),
    );
  const requireLive = (index: number) => {
    if (state(index).client.status === 'deleted')
      throw new SimHttpError(409, 'invalid_state', 'client is deleted');
  };
  const changeClient = (
    index: number,
    mutate: (client: ClientState, modifiedAt: string) => void,
    flags?: number,
  ) =>
    table.change(
      index,
      (current) => {
        const modifiedAt = nowIso();
        mutate(current, modifiedAt);
        current.client.modifiedAt = modifiedAt;
      },
      flags,
    );
  const changeGroup = (index: number, mutate: (client: ClientState, modifiedAt: string) => void) => {
    requireLive(index);
    changeClient(index, mutate);
    addressbook.bumpGroup(index, counter.next());
  };
  const entry = (index: number, number: number) => {
    const found = state(index).entries.find((candidate) => candidate.number === number);
    if (!found) throw new SimHttpError(404, 'not_found', 'no such address-book entry');
    return found;
  };
  const contactJson = (contact: ContactState) =>
    withSequence(wire('client_contacts', contact.record), sequenceField, contact.sequence);

  return {
    table,
    ids: options.ids,
    listing: () =>
      tableListingSource({ key: 'clients', table, statusCodes: clientStatusCodes, json: listJson }),
    find(id) {
      const index = options.ids.parse(id);
      if (index === undefined || table.isGone(index))
        throw new SimHttpError(404, 'not_found', 'no such client');
      return index;
    },
    listJson,
    contactJson,
    create(fields) {
      const index = table.size();
      const created = generateClient(options, index, { modifiedAt: nowIso() });
      Object.assign(created.client, fields);
      table.add(created, 0);
      addressbook.bumpGroup(index, 0);
      return index;
    },
    update(index, client) {
      requireLive(index);
      const { modifiedAt: _before, ...current } = state(index).client;
      const { modifiedAt: _after, ...next } = client;
      if (JSON.stringify(current) === JSON.stringify(next)) return;
      changeClient(index, (target) => Object.assign(target.client, next));
    },
    softDelete(index) {
      requireLive(index);
      changeClient(
        index,
        (target) => Object.assign(target.client, { status: 'deleted' }),
        recordFlags.softDeleted,
      );
    },
    hardDelete: (index) => table.remove(index),
    touch: (index) => changeClient(index, () => {}),
    contacts: (index) =>
      childListingSource({
        version: table.version,
        key: `client_contacts:${index}`,
        children: state(index).contacts,
        json: contactJson,
      }),
    addContact(index, fields) {
      requireLive(index);
      let added: ContactState | undefined;
      changeClient(index, (target, modifiedAt) => {
        const number = target.nextContactNumber++;
        const clientId = target.client.id;
        const record = {
          id: childId(clientId, 'C', number),
          clientId,
          name: fields.name,
          email: fields.email ?? '',
          phone: fields.phone ?? '',
          role: fields.role ?? '',
          modifiedAt,
        };
        added = { number, sequence: counter.next(), record };
        target.contacts.push(added);
      });
      return added!;
    },
    updateContact(index, number, fields) {
      requireLive(index);
      changeClient(index, (target, modifiedAt) => {
        const contact = target.contacts.find((candidate) => candidate.number === number)!;
        Object.assign(contact.record, fields, { modifiedAt });
        contact.sequence = counter.next();
      });
    },
    addressbook: (index) =>
      childListingSource({
        version: table.version,
        key: `client_addressbook:${index}`,
        children: state(index).entries.map((item) => ({
          number: item.number,
          sequence: addressbook.groupSequence(index),
        })),
        json: (item) => addressbook.ownEntryJson(entryPosition(index, item.number)),
      }),
    globalAddressbook: () => addressbook.source,
    addEntry(index, pick) {
      if (state(index).nextEntryNumber >= 4096)
        throw new SimHttpError(409, 'invalid_state', 'address book is full');
      let id = '';
      changeGroup(index, (target, modifiedAt) => {
        const created = newEntry(pick, {
          clientId: target.client.id,
          number: target.nextEntryNumber++,
          modifiedAt,
        });
        target.entries.push(created);
        id = created.record.id;
      });
      return id;
    },
    updateEntry(index, number, fields) {
      entry(index, number);
      changeGroup(index, (target, modifiedAt) => {
        const found = target.entries.find((candidate) => candidate.number === number)!;
        Object.assign(found.record, fields, { modifiedAt });
      });
    },
    removeEntry(index, number) {
      entry(index, number);
      changeGroup(index, (target) => {
        target.entries = target.entries.filter((candidate) => candidate.number !== number);
      });
    },
  };
}
