import type { AddressBookEntry, Client, ClientContact } from '../records/index.js';
import { createPicker, hash32, type Picker, randomTags } from '../seeded-random.js';
import { childId, type IdFormat } from './id-format.js';
import { baseModifiedAt } from './record-time.js';
import {
  categories,
  cities,
  companyKinds,
  companyNames,
  firstNames,
  legalForms,
  roles,
  streets,
} from './word-lists.js';

export type ClientRecord = Omit<Client, 'sequence'>;
export type EntryRecord = Omit<AddressBookEntry, 'sequence'>;

export interface ContactState {
  readonly number: number;
  sequence: number;
  record: Omit<ClientContact, 'sequence'>;
}

/** An address-book entry; its sequence is its client's group sequence (a change re-delivers the group). */
export interface EntryState {
  readonly number: number;
  record: EntryRecord;
}

export interface ClientState {
  client: ClientRecord;
  contacts: ContactState[];
  entries: EntryState[];
  nextContactNumber: number;
  nextEntryNumber: number;
}

export const clientStatusCodes = { active: 0 } as const;

export interface ClientGeneratorOptions {
  seed: number;
  ids: IdFormat;
  baseSequences: Float64Array;
  firstSequence: number;
}

// Generation is synchronous, so one picker reseeded per record serves every call.
const picker = createPicker();

/** 3% of the initial clients are soft-deleted. */
export function baseClientDeleted(seed: number, index: number): boolean {
  return hash32(seed, randomTags.client + 100, index) % 100 < 3;
}

/** Rebuilds client `index` of the initial data set; `created` builds a new client without children instead. */
export function generateClient(
  options: ClientGeneratorOptions,
  index: number,
  created?: { modifiedAt: string },
): ClientState {
  const pick = picker.reseed(hash32(options.seed, randomTags.client, index));
  const id = options.ids.format(index);
  const modifiedAt =
    created?.modifiedAt ?? baseModifiedAt(options.baseSequences[index]!, options.firstSequence);
  const name = `${pick.pick(companyNames)} ${pick.pick(companyKinds)} ${pick.pick(legalForms)}`;
  const place = pick.pick(cities);
  const client: ClientRecord = {
    id,
    name,
    email: `info@${name
      .split(' ')[0]!
      .toLowerCase()
      .replace(/[^a-z]/g, '')}${index + 1}.example`,
    phone: `+31 ${pick.int(10, 99)} ${pick.int(1000000, 9999999)}`,
    vatNumber: `${place.country}${pick.int(100000000, 999999999)}B01`,
    address: postalAddress(pick, place),
    categories: pick.chance(0.5) ? [pick.pick(categories)] : [],
    status: !created && baseClientDeleted(options.seed, index) ? 'deleted' : 'active',
    modifiedAt,
  };
  if (created) return { client, contacts: [], entries: [], nextContactNumber: 1, nextEntryNumber: 1 };
  const contacts = Array.from({ length: pick.int(1, 3) }, (_, offset) =>
    newContact(pick, {
      clientId: id,
      number: offset + 1,
      sequence: options.baseSequences[index]!,
      modifiedAt,
    }),
  );
  const entries = Array.from({ length: pick.int(1, 4) }, (_, offset) =>
    newEntry(pick, { clientId: id, number: offset + 1, modifiedAt }),
  );
  return {
    client,
    contacts,
    entries,
    nextContactNumber: contacts.length + 1,
    nextEntryNumber: entries.length + 1,
  };
}

function postalAddress(pick: Picker, place: (typeof cities)[number]): ClientRecord['address'] {
  return {
    street: pick.pick(streets),
    houseNumber: String(pick.int(1, 250)),
    postalCode: `${pick.int(1000, 9999)} ${String.fromCharCode(65 + pick.int(0, 25), 65 + pick.int(0, 25))}`,
    city: place.city,
    country: place.country,
  };
}

export function newContact(
  pick: Picker,
  at: { clientId: string; number: number; sequence: number; modifiedAt: string },
): ContactState {
  const name = `${pick.pick(firstNames)} ${pick.pick(companyNames)}`;
  return {
    number: at.number,
    sequence: at.sequence,
    record: {
      id: childId(at.clientId, 'C', at.number),
      clientId: at.clientId,
      name,
      email: `${name.split(' ')[0]!.toLowerCase()}.${at.number}@client.example`,
      phone: `+31 6 ${pick.int(10000000, 99999999)}`,
      role: pick.pick(roles),
      modifiedAt: at.modifiedAt,
    },
  };
}

export function newEntry(
  pick: Picker,
  at: { clientId: string; number: number; modifiedAt: string },
): EntryState {
  const place = pick.pick(cities);
  return {
    number: at.number,
    record: {
      id: childId(at.clientId, 'A', at.number),
      clientId: at.clientId,
      name: `${pick.pick(['Warehouse', 'Depot', 'Head office', 'Store', 'Cross-dock'])} ${place.city}`,
      ...postalAddress(pick, place),
      location: pick.chance(0.8)
        ? {
            latitude: place.latitude + pick.int(-500, 500) / 10000,
            longitude: place.longitude + pick.int(-500, 500) / 10000,
          }
        : null,
      modifiedAt: at.modifiedAt,
    },
  };
}
