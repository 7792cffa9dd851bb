import { type ListingSource, standardLimits } from '../listing/listing-source.js';
import type { RecordShapes } from '../records/record-shapes.js';
import { createBoundedCache } from '../tables/bounded-cache.js';
import type { RecordTable } from '../tables/record-table.js';
import type { ClientState } from './client-generator.js';
import { withSequence } from './record-time.js';

/** Entry numbers of one client stay below this, so (client, entry) packs into one position. */
export const entriesPerClient = 4096;

export function entryPosition(client: number, number: number): number {
  return client * entriesPerClient + number;
}

export interface AddressbookSource {
  /** `GET /client/addressbook/`: every entry of every client that is not hard-deleted, in id order. */
  readonly source: ListingSource;
  groupSequence(client: number): number;
  /** Gives every entry of the client a new sequence (group re-delivery). */
  bumpGroup(client: number, sequence: number): void;
  /** An entry as `GET /client/addressbook/` serves it. */
  entryJson(position: number): string;
  /** An entry as its client's own address book serves it (`client_addressbook`'s shape). */
  ownEntryJson(position: number): string;
}

/** An entry's JSON in both listings that serve it. */
interface EntryJson {
  readonly global: string;
  readonly own: string;
}

/**
 * The global address book. Entries share their client's group sequence, so they are stored as one
 * Float64Array of group sequences; a page's JSON is cached per group.
 */
export function createAddressbookSource(options: {
  table: RecordTable<ClientState>;
  groupSequences: Float64Array;
  sequenceField: string;
  jsonCacheSize: number;
  /** The wire form of a record (variant.recordShapes). */
  shapes: RecordShapes;
}): AddressbookSource {
  const { table, sequenceField, shapes } = options;
  let groups = options.groupSequences;
  const cache = createBoundedCache<number, Map<number, EntryJson>>(options.jsonCacheSize);
  // A one-group memo besides the cache: a page reads each group twice (scan, then json), even uncached.
  let last: { client: number; entries: Map<number, EntryJson> } | undefined;
  const served = (shaped: Record<string, unknown>, sequence: number) =>
    withSequence(JSON.stringify(shaped), sequenceField, sequence);
  const groupJson = (client: number): Map<number, EntryJson> => {
    if (last?.client === client) return last.entries;
    let entries = cache.get(client);
    if (!entries) {
      const sequence = groups[client]!;
      entries = new Map();
      for (const entry of table.get(client)!.entries) {
        const record = entry.record as unknown as Record<string, unknown>;
        const global = served(shapes('addressbook', record), sequence);
        const ownShape = shapes('client_addressbook', record);
        // In tms-sim's own shapes both listings serve the entry alike: one string then, not two.
        const own = ownShape === record ? global : served(ownShape, sequence);
        entries.set(entry.number, { global, own });
      }
      cache.set(client, entries);
    }
    last = { client, entries };
    return entries;
  };
  const entryOf = (position: number) =>
    groupJson(Math.floor(position / entriesPerClient)).get(position % entriesPerClient)!;
  const entryJson = (position: number) => entryOf(position).global;

  const source: ListingSource = {
    key: 'addressbook',
    statuses: [],
    limits: standardLimits,
    version: table.version,
    sequence: (position) => groups[Math.floor(position / entriesPerClient)]!,
    json: entryJson,
    scan(after, filter, visit) {
      const since = filter.since ?? -1;
      let afterNumber = after < 0 ? -1 : after % entriesPerClient;
      const size = table.size();
      for (let client = after < 0 ? 0 : Math.floor(after / entriesPerClient); client < size; client++) {
        const sequence = groups[client]!;
        if (sequence > since && !table.isGone(client)) {
          for (const number of groupJson(client).keys()) {
            if (number > afterNumber && !visit(entryPosition(client, number), sequence)) return;
          }
        }
        afterNumber = -1;
      }
    },
  };

  return {
    source,
    groupSequence: (client) => groups[client]!,
    bumpGroup(client, sequence) {
      if (client >= groups.length) {
        const bigger = new Float64Array(Math.max(groups.length * 2, client + 16));
        bigger.set(groups);
        groups = bigger;
      }
      groups[client] = sequence;
      cache.delete(client);
      last = undefined;
    },
    entryJson,
    ownEntryJson: (position) => entryOf(position).own,
  };
}
