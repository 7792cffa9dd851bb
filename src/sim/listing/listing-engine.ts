import type { SequenceCounter } from '../tables/sequence-counter.js';
import type { CursorCodec, CursorState } from './cursor-codec.js';
import { type ListingQuery, parseListingQuery } from './listing-query.js';
import type { ListingSource } from './listing-source.js';
import { createSortedOrders } from './sorted-order.js';

/** Answers every paginated REST listing by the rules of docs/api.md, Listings. */
export interface ListingEngine {
  /** The page's JSON body for the request's query parameters; throws SimHttpError 400 on bad ones. */
  page(source: ListingSource, query: Record<string, unknown>): string;
}

export interface ListingEngineOptions {
  codec: CursorCodec;
  counter: SequenceCounter;
  sequenceField: string;
  /** Put a cursor on the last page too (it leads to an empty page). */
  cursorOnLastPage: boolean;
}

interface Selection {
  readonly positions: readonly number[];
  readonly hasMore: boolean;
}

export function createListingEngine(options: ListingEngineOptions): ListingEngine {
  const sortedOrders = createSortedOrders();

  const select = (source: ListingSource, query: ListingQuery): Selection => {
    if (query.order) {
      const after = query.cursor && { position: query.cursor.after, sequence: query.cursor.afterSequence };
      const { positions, start } = sortedOrders.page(source, query.filter, query.order, after);
      const end = Math.min(start + query.limit, positions.length);
      return { positions: Array.from(positions.subarray(start, end)), hasMore: end < positions.length };
    }
    const positions: number[] = [];
    let hasMore = false;
    source.scan(query.cursor?.after ?? -1, query.filter, (position) => {
      if (positions.length === query.limit) {
        hasMore = true;
        return false;
      }
      positions.push(position);
      return true;
    });
    return { positions, hasMore };
  };

  return {
    page(source, rawQuery) {
      const query = parseListingQuery(rawQuery, source, options);
      // The watermark of a `since` cycle is fixed on its first page and travels in the cursor.
      const snapshot =
        query.filter.since === undefined ? undefined : (query.cursor?.snapshot ?? options.counter.current());
      const { positions, hasMore } = select(source, query);
      const last = positions.at(-1);
      const cursor =
        last !== undefined && (hasMore || options.cursorOnLastPage)
          ? options.codec.encode(cursorAfter(source, query, last, snapshot))
          : undefined;
      return pageBody(source, positions, {
        hasMore,
        cursor,
        maxSequence: snapshot ?? pageMax(source, positions),
      });
    },
  };
}

function cursorAfter(
  source: ListingSource,
  query: ListingQuery,
  last: number,
  snapshot?: number,
): CursorState {
  return {
    listing: source.key,
    filter: query.filter,
    after: last,
    afterSequence: source.sequence(last),
    snapshot,
  };
}

function pageMax(source: ListingSource, positions: readonly number[]): number | undefined {
  let max: number | undefined;
  for (const position of positions) {
    const sequence = source.sequence(position);
    if (max === undefined || sequence > max) max = sequence;
  }
  return max;
}

/** Builds the body by concatenating cached record JSON: big pages never go through a serializer. */
function pageBody(
  source: ListingSource,
  positions: readonly number[],
  meta: { hasMore: boolean; cursor?: string; maxSequence?: number },
): string {
  let body = '{"data":{';
  if (positions.length > 0) {
    const items = new Array<string>(positions.length);
    for (let i = 0; i < positions.length; i++) items[i] = source.json(positions[i]!);
    body += `"items":[${items.join(',')}],`;
  }
  if (meta.cursor !== undefined) body += `"nextCursor":"${meta.cursor}",`;
  body += `"hasMore":${meta.hasMore}`;
  if (meta.maxSequence !== undefined) body += `,"maxSequence":${meta.maxSequence}`;
  return `${body}}}`;
}
