import { SimHttpError } from '../sim-http-error.js';
import type { CursorCodec, CursorFilter, CursorState } from './cursor-codec.js';
import type { ListingSource } from './listing-source.js';

/** A custom order: by id or by sequence (`modifiedAt` never decreases with the sequence, so it sorts alike). */
export interface SortOrder {
  readonly by: 'id' | 'sequence';
  readonly descending: boolean;
}

export interface ListingQuery {
  readonly limit: number;
  readonly filter: CursorFilter;
  /** Undefined for the default order (by id ascending). */
  readonly order?: SortOrder;
  readonly cursor?: CursorState;
}

const badQuery = (message: string) => new SimHttpError(400, 'invalid_query', message);

/**
 * Checks the pagination parameters of docs/api.md, Listings. On a follow-up page the cursor's filter
 * holds; `since`, `sort` and `status` may be repeated but must then equal the cursor's.
 */
export function parseListingQuery(
  raw: Record<string, unknown>,
  source: ListingSource,
  options: { codec: CursorCodec; sequenceField: string },
): ListingQuery {
  const limit = parseLimit(single(raw, 'limit'), source);
  const cursorText = single(raw, 'cursor');
  const cursor = cursorText === undefined ? undefined : options.codec.decode(cursorText, source.key);
  const given: CursorFilter = {
    status: single(raw, 'status'),
    sort: single(raw, 'sort') === 'id' ? undefined : single(raw, 'sort'),
    since: parseSince(single(raw, 'since')),
  };
  const filter = cursor ? mergeWithCursor(given, cursor.filter) : given;
  if (filter.status !== undefined && !source.statuses.includes(filter.status)) {
    throw badQuery(
      source.statuses.length === 0
        ? 'this listing has no status filter'
        : `status must be one of ${source.statuses.join(', ')}`,
    );
  }
  const order = parseSort(filter.sort, options.sequenceField);
  if (order && filter.since !== undefined) {
    throw new SimHttpError(400, 'since_with_sort', '`since` requires the default sort (by id); drop `sort`');
  }
  return { limit, filter: dropUndefined(filter), order, cursor };
}

function single(raw: Record<string, unknown>, name: string): string | undefined {
  const value = raw[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badQuery(`${name} must be given once`);
  return value;
}

function parseLimit(text: string | undefined, source: ListingSource): number {
  if (text === undefined) return source.limits.default;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw badQuery('limit must be a positive integer');
  return Math.min(Number(text), source.limits.max);
}

function parseSince(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const since = Number(text);
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(since)) {
    throw badQuery('since must be a sequence number (a non-negative integer), not a date');
  }
  return since;
}

function parseSort(sort: string | undefined, sequenceField: string): SortOrder | undefined {
  if (sort === undefined) return undefined;
  const descending = sort.startsWith('-');
  const field = descending ? sort.slice(1) : sort;
  if (field === 'id') return { by: 'id', descending };
  if (field === sequenceField || field === 'modifiedAt') return { by: 'sequence', descending };
  throw badQuery(`sort must be one of id, ${sequenceField}, modifiedAt, optionally prefixed with -`);
}

function mergeWithCursor(given: CursorFilter, carried: CursorFilter): CursorFilter {
  for (const key of ['status', 'sort', 'since'] as const) {
    if (given[key] !== undefined && given[key] !== carried[key]) {
      throw new SimHttpError(400, 'invalid_cursor', `${key} differs from the cycle the cursor belongs to`);
    }
  }
  return carried;
}

function dropUndefined(filter: CursorFilter): CursorFilter {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
}
