import type { HostileMode } from './hostile-rule.js';

/** A listing page as the simulator serves it (docs/api.md, Envelopes). */
export interface PageJson {
  data: {
    items?: Array<Record<string, unknown>>;
    nextCursor?: string;
    hasMore: boolean;
    maxSequence?: number;
  };
}

/** What a rewrite may use of the request it answers. */
export interface PageRequest {
  /** The cursor the request carried, if any. */
  readonly cursor: string | undefined;
  /** The page size asked for. @default 100 (docs/api.md's default) */
  readonly limit: number;
  /** A new cursor no real listing gives, for the endless empty pages. */
  readonly fakeCursor: () => string;
}

export type RewriteMode = Exclude<HostileMode, 'html-502' | 'cut-body' | 'stall-mid-body' | 'slow-drip'>;

/** How each mode turns a real page (parsed JSON text) into the hostile answer's body. */
export const pageRewrites: Readonly<Record<RewriteMode, (text: string, request: PageRequest) => string>> = {
  // A trailing comma: looks like JSON, parses as nothing.
  'invalid-json': (text) => `${text.slice(0, -1)},}`,
  'wrong-types': (text) => {
    const { data } = parse(text);
    return JSON.stringify({
      data: { ...data, hasMore: String(data.hasMore), maxSequence: `${data.maxSequence}` },
    });
  },
  'missing-data': (text) => JSON.stringify(parse(text).data),
  'endless-empty': (text, request) => emptyPage(parse(text).data.maxSequence, request.fakeCursor()),
  'endless-cursor': (text, request) => {
    const { data } = parse(text);
    return oneItemPage(data.items?.[0], data.maxSequence, request.fakeCursor());
  },
  'repeat-cursor': (text, request) =>
    JSON.stringify({ data: { ...parse(text).data, hasMore: true, nextCursor: request.cursor } }),
  'max-sequence-backwards': (text) => {
    const { data } = parse(text);
    return JSON.stringify({ data: { ...data, maxSequence: Math.max(0, (data.maxSequence ?? 0) - 1000) } });
  },
  'deep-record': (text) => {
    const { data } = parse(text);
    const [first, ...rest] = data.items ?? [];
    if (!first) return text;
    // Built as text: no serializer of ours could write a value nested this deep.
    const marker = '"__deep__"';
    const deep = `${'{"a":'.repeat(deepRecordLevels)}1${'}'.repeat(deepRecordLevels)}`;
    const record = { ...first, modifiedAt: '__deep__', nested: '__deep__' };
    const page = JSON.stringify({ data: { ...data, items: [record, ...rest] } });
    return page.replaceAll(marker, () => deep);
  },
  'oversized-page': (text, request) => {
    const { data } = parse(text);
    return JSON.stringify({ data: { ...data, items: inflate(data.items ?? [], request.limit * 10) } });
  },
};

/** How deep `deep-record` nests the field it adds to the page's first record. */
export const deepRecordLevels = 200_000;

/** An empty page that says there is more, under the cycle's `maxSequence` so only the paging is wrong. */
export function emptyPage(maxSequence: number | undefined, nextCursor: string): string {
  return JSON.stringify({ data: { hasMore: true, nextCursor, maxSequence } });
}

/** A page of one item that says there is more, under a new cursor each time: a listing without end. */
export function oneItemPage(
  item: Record<string, unknown> | undefined,
  maxSequence: number | undefined,
  nextCursor: string,
): string {
  return JSON.stringify({ data: { items: item ? [item] : [], hasMore: true, nextCursor, maxSequence } });
}

/** `size` records made from the page's own, under invented ids: none of them exists. */
function inflate(items: Array<Record<string, unknown>>, size: number): Array<Record<string, unknown>> {
  const model = items[0] ?? {};
  return Array.from({ length: size }, (_, n) => ({
    ...(items[n % Math.max(1, items.length)] ?? model),
    id: `hostile-${String(n).padStart(7, '0')}`,
  }));
}

function parse(text: string): PageJson {
  return JSON.parse(text) as PageJson;
}
