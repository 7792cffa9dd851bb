import { Pool } from 'undici';

/** What one listing page gave: its records (unparsed in bytes-only mode), for which partition. */
export interface SourcePage {
  readonly items: readonly Record<string, unknown>[];
  /** Records on the page (also counted in bytes-only mode, where `items` stays empty). */
  readonly count: number;
  /** The page came from the `status=deleted` listing (the product's `deleted` partition). */
  readonly deleted: boolean;
}

export interface PageSource {
  /** Every page of the invoices' default and `status=deleted` listings from `since=1`, as a backfill reads them. */
  pages(): AsyncGenerator<SourcePage, void, undefined>;
  /** HTTP requests sent so far (login included). */
  readonly requests: () => number;
  close(): Promise<void>;
}

interface Envelope {
  data: { items?: Record<string, unknown>[]; nextCursor?: string; hasMore: boolean };
}

/**
 * The raw and naive loops' shared page fetching: one keep-alive undici Pool, one request in
 * flight, `body.text()` + `JSON.parse` (or no parse at all with `parse: false`, which measures the
 * simulator's serving rate), nothing else: no validation, no retries.
 */
export function createPageSource(url: string, options: { parse: boolean; limit?: number }): PageSource {
  const pool = new Pool(url, { connections: 1 });
  const limit = options.limit ?? 1000;
  let requests = 0;
  const get = async (path: string, headers: Record<string, string>): Promise<string> => {
    requests++;
    const response = await pool.request({ method: 'GET', path, headers });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}: ${text}`);
    return text;
  };

  async function* listing(token: string, status: string | undefined): AsyncGenerator<SourcePage> {
    const headers = { authorization: `Bearer ${token}` };
    const filter = status ? `&status=${status}` : '';
    let query = `since=1&limit=${limit}${filter}`;
    for (;;) {
      const text = await get(`/invoice/invoices/?${query}`, headers);
      const page = options.parse ? parsedPage(text) : scannedPage(text);
      yield { items: page.items, count: page.count, deleted: status === 'deleted' };
      if (!page.hasMore || !page.nextCursor) return;
      query = `limit=${limit}${filter}&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
  }

  return {
    async *pages() {
      const token = await login(pool, () => requests++);
      yield* listing(token, undefined);
      yield* listing(token, 'deleted');
    },
    requests: () => requests,
    close: () => pool.close(),
  };
}

async function login(pool: Pool, count: () => void): Promise<string> {
  count();
  const response = await pool.request({
    method: 'POST',
    path: '/auth/login-api-token',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiToken: 'dev-api-token' }),
  });
  const body = (await response.body.json()) as { data: { items: [{ access: string }] } };
  return body.data.items[0].access;
}

function parsedPage(text: string) {
  const { data } = JSON.parse(text) as Envelope;
  const items = data.items ?? [];
  return { items, count: items.length, hasMore: data.hasMore, nextCursor: data.nextCursor };
}

/** Bytes only: the paging fields by search and records by counting their `"id":` keys. */
function scannedPage(text: string) {
  let count = 0;
  for (let at = text.indexOf('{"id":'); at !== -1; at = text.indexOf('{"id":', at + 6)) count++;
  return {
    items: [],
    count,
    hasMore: text.includes('"hasMore":true'),
    nextCursor: /"nextCursor":"([^"]+)"/.exec(text)?.[1],
  };
}
