import type { JsonObject } from '../../schemas/json-object.js';
import { linkSignals, type StopSignal } from '../linked-signals.js';
import { CursorLoopError, PaginationError, type RequestTarget } from './client-errors.js';
import { pageData } from './envelope-checks.js';
import type { RequestCore } from './request-core.js';
import { buildPath, type PathParams, pathParamNames, type QueryParams } from './request-path.js';
import { requestsLeft } from './requests-left.js';
import { recordObjects } from './response-checks.js';

/** A paginated REST listing (docs/api.md, Envelopes and Listings): a path template with `{name}` placeholders. */
export interface ListingDefinition {
  readonly path: string;
}

/** Query and control options of a listing pass; the path parameters come beside them. */
export interface PageQuery {
  /** Sequence number, exclusive; needs the default sort (docs/api.md, Listings). @default undefined */
  since?: number | undefined;
  /** Page size asked for; the server may answer fewer (its own cap). @default undefined (server default) */
  limit?: number | undefined;
  /** Sort field, `-` prefix for descending; not with `since`. @default undefined */
  sort?: string | undefined;
  /** e.g. `deleted` for the soft-deleted records. @default undefined */
  status?: string | undefined;
  /** Resume from this cursor (a checkpoint) instead of the first page. @default undefined */
  cursor?: string | undefined;
  /** Other query parameters, sent on every page. @default undefined */
  query?: QueryParams | undefined;
  /** Consecutive empty pages with `hasMore: true` tolerated before PaginationError. @default 10 */
  maxEmptyPages?: number | undefined;
  signal?: StopSignal | undefined;
}

export type PageOptions<P extends string> = PageQuery & PathParams<P>;

/** One page: its records, as received, and everything needed to checkpoint and resume. */
export interface Page {
  /** The records, each a JSON object; their fields are the TMS's own. */
  readonly items: JsonObject[];
  /** The cursor that fetched this page (undefined for the first page of a pass). */
  readonly cursor: string | undefined;
  /** Where the next page starts; only meaningful while `hasMore`. */
  readonly nextCursor: string | undefined;
  readonly hasMore: boolean;
  /** With `since`: the cycle's watermark (the same on every page); without: the page's highest sequence. */
  readonly maxSequence: number | undefined;
  /** 1-based position of the page in this pass. */
  readonly pageNumber: number;
  /** The answer's text, and the keys leading from its root to the array `items` were parsed from. */
  readonly received: { readonly text: string; readonly path: readonly string[] };
}

/** Where a page envelope holds its items (docs/api.md, Envelopes). */
const itemsPath = ['data', 'items'] as const;

const defaultMaxEmptyPages = 10;

/**
 * Follows `nextCursor` until `hasMore` is false, and nothing else (a cursor on the last page is
 * ignored). Never assumes full pages, sequence order, the sequence field's name or any field of a
 * record; an item that is not a JSON object fails the page. Fails on a cursor
 * seen before in this pass (CursorLoopError), on endless empty pages and on a page holding more items
 * than the limit asked for (PaginationError).
 *
 * The next page is requested as soon as this one's cursor is checked, and this one is yielded
 * once that request has left (`requestsLeft`), so it arrives while the caller writes this one (it
 * pays most where each request has latency; BENCHMARKS.md). Pages are still yielded one at a time
 * and in order; a caller that stops early cancels the request in flight.
 */
export async function* paginate<L extends ListingDefinition>(
  core: RequestCore,
  listing: L,
  options: PageOptions<L['path']>,
): AsyncGenerator<Page, void, undefined> {
  const { since, limit, sort, status, query } = options;
  const path = buildPath(listing.path, pathParamsOf(listing.path, options));
  const target: RequestTarget = { method: 'GET', path };
  const maxEmptyPages = options.maxEmptyPages ?? defaultMaxEmptyPages;
  const stopped = linkSignals(options.signal);
  const signal = stopped.stop;
  const fetchPage = (cursor: string | undefined) =>
    core.received({
      method: 'GET',
      path,
      auth: 'rest',
      signal,
      query: { ...query, since, limit, sort, status, cursor },
    });
  const seen = new Set<string>();
  let cursor = options.cursor;
  let next = fetchPage(cursor);
  let emptyPages = 0;
  try {
    for (let pageNumber = 1; ; pageNumber++) {
      if (cursor !== undefined) seen.add(cursor);
      const answer = await next;
      const data = pageData(answer.value, target);
      const items = recordObjects(data.items ?? [], target);
      if (limit !== undefined && items.length > limit) {
        throw new PaginationError(
          `the page holds ${items.length} items, more than the limit of ${limit} asked for`,
          {
            target,
          },
        );
      }
      if (data.hasMore) {
        emptyPages = items.length === 0 ? emptyPages + 1 : 0;
        checkContinuation(data.nextCursor, seen, emptyPages, maxEmptyPages, target);
        next = fetchPage(data.nextCursor);
        // Awaited on the next turn; until then a failure must not count as unhandled.
        next.catch(() => undefined);
        await requestsLeft();
      }
      yield {
        items,
        cursor,
        nextCursor: data.nextCursor,
        hasMore: data.hasMore,
        maxSequence: data.maxSequence,
        pageNumber,
        received: { text: answer.text, path: itemsPath },
      };
      if (!data.hasMore) return;
      cursor = data.nextCursor;
    }
  } finally {
    stopped.abort(new Error('the listing pass ended'));
    stopped.unlink();
  }
}

function checkContinuation(
  nextCursor: string | undefined,
  seen: ReadonlySet<string>,
  emptyPages: number,
  maxEmptyPages: number,
  target: RequestTarget,
): void {
  if (nextCursor === undefined || nextCursor === '') {
    throw new PaginationError('the page says hasMore but carries no nextCursor', { target });
  }
  if (seen.has(nextCursor)) {
    throw new CursorLoopError('the listing returned a cursor it had already returned in this pass', {
      target,
    });
  }
  if (emptyPages > maxEmptyPages) {
    throw new PaginationError(
      `${emptyPages} empty pages in a row still say hasMore (limit maxEmptyPages=${maxEmptyPages})`,
      { target },
    );
  }
}

function pathParamsOf(template: string, options: object): Record<string, unknown> {
  const values = options as Record<string, unknown>;
  return Object.fromEntries(pathParamNames(template).map((name) => [name, values[name]]));
}
