import { type RecordTable, recordFlags } from '../tables/record-table.js';

/** What the `status` and `since` parameters ask of a listing. */
export interface ListingFilter {
  readonly status?: string;
  readonly since?: number;
}

/** Page sizes of a listing (docs/api.md, Listings: 100 and 1000, lower on a few listings). */
export interface ListingLimits {
  readonly default: number;
  readonly max: number;
}

export const standardLimits: ListingLimits = { default: 100, max: 1000 };

/**
 * Anything the listings engine can page through. Positions are numbers in id order (the source
 * chooses them); the engine never looks inside them, it only carries the last one in the cursor.
 */
export interface ListingSource {
  /** The listing and its scope; a cursor works only on the listing that issued it. */
  readonly key: string;
  /** Values of the `status` parameter the listing accepts; empty when it has no status filter. */
  readonly statuses: readonly string[];
  readonly limits: ListingLimits;
  /** Changes whenever the entries change (custom-sort orders are cached per version). */
  version(): number;
  sequence(position: number): number;
  /** Visits the entries after `after` (-1: from the start) that match, in id order, until `visit` returns false. */
  scan(after: number, filter: ListingFilter, visit: (position: number, sequence: number) => boolean): void;
  json(position: number): string;
}

export interface TableSourceOptions<T> {
  key: string;
  table: RecordTable<T>;
  /** Status name -> status code in the record flags; `deleted` is the soft-deleted flag. */
  statusCodes: Readonly<Record<string, number>>;
  json(index: number): string;
  limits?: ListingLimits;
}

/** A listing over a record table: soft-deleted records only under `status=deleted`, hard-deleted ones never. */
export function tableListingSource<T>(options: TableSourceOptions<T>): ListingSource {
  const { table } = options;
  return {
    key: options.key,
    statuses: [...Object.keys(options.statusCodes), 'deleted'],
    limits: options.limits ?? standardLimits,
    version: table.version,
    sequence: table.sequence,
    json: options.json,
    scan(after, filter, visit) {
      const [mask, value] = flagMatch(filter.status, options.statusCodes);
      const since = filter.since ?? -1;
      const size = table.size();
      for (let index = Math.max(after + 1, 0); index < size; index++) {
        const sequence = table.sequence(index);
        if ((table.flags(index) & mask) === value && sequence > since && !visit(index, sequence)) return;
      }
    },
  };
}

function flagMatch(status: string | undefined, codes: Readonly<Record<string, number>>): [number, number] {
  const deletedMask = recordFlags.gone | recordFlags.softDeleted;
  if (status === undefined) return [deletedMask, 0];
  if (status === 'deleted') return [deletedMask, recordFlags.softDeleted];
  return [deletedMask | recordFlags.statusMask, (codes[status] ?? 0) << recordFlags.statusShift];
}

/** One child of a parent, numbered in id order. */
export interface NumberedChild {
  readonly number: number;
  readonly sequence: number;
}

/** A listing over a parent's children (payments, contacts, one client's address book). */
export function childListingSource<C extends NumberedChild>(options: {
  key: string;
  children: readonly C[];
  json(child: C): string;
  /** The parent table's version: children change only with their parent. */
  version(): number;
  limits?: ListingLimits;
}): ListingSource {
  const byNumber = new Map(options.children.map((child) => [child.number, child]));
  return {
    key: options.key,
    statuses: [],
    limits: options.limits ?? standardLimits,
    version: options.version,
    sequence: (position) => byNumber.get(position)!.sequence,
    json: (position) => options.json(byNumber.get(position)!),
    scan(after, filter, visit) {
      const since = filter.since ?? -1;
      for (const child of options.children) {
        if (child.number > after && child.sequence > since && !visit(child.number, child.sequence)) return;
      }
    },
  };
}
