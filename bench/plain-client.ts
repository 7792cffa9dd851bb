// The small correct client of the fault rows, in its own process: the REST streams (invoices, clients,
// the global address book, each live invoice's detail and payments, each live client's contacts
// and address book), `--concurrency` requests in flight over one keep-alive undici Pool, every
// request sent up to 10 times: a 429 waits its Retry-After (that request only), a 5xx or a reset
// waits 100 ms, a 401 logs in again (tokens may live 5 s). It counts records and writes nothing.
//   node --import tsx bench/plain-client.ts --url SIM_URL [--concurrency 8]
// Prints one JSON line: {records, sends, seconds} (the whole run, login included).
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: { url: { type: 'string' }, concurrency: { type: 'string', default: '8' } },
});
const concurrency = Number(values.concurrency);
const pool = new Pool(values.url!, { connections: concurrency });
const maxSends = 10;
let sends = 0;

interface Page {
  data: { items?: { id: string; [field: string]: unknown }[]; nextCursor?: string; hasMore?: boolean };
}

let token: Promise<string> | undefined;
const logIn = () =>
  (token ??= send('POST', '/auth/login-api-token', JSON.stringify({ apiToken: 'dev-api-token' })).then(
    (body) => (body as { data: { items: [{ access: string }] } }).data.items[0].access,
  ));

/** One request, sent until it succeeds (10 sends at most). */
async function send(method: 'GET' | 'POST', path: string, body?: string): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    sends++;
    let status = 0;
    let retryAfter: string | undefined;
    let text = '';
    const used = body === undefined ? await logIn() : undefined;
    try {
      const response = await pool.request({
        method,
        path,
        headers:
          body === undefined ? { authorization: `Bearer ${used}` } : { 'content-type': 'application/json' },
        body,
      });
      status = response.statusCode;
      retryAfter = response.headers['retry-after'] as string | undefined;
      text = await response.body.text();
    } catch {
      status = 0; // reset or cut: send again
    }
    if (status === 200) return JSON.parse(text);
    if (attempt >= maxSends) throw new Error(`${method} ${path}: ${status} after ${maxSends} sends`);
    if (status === 401 && used !== undefined) {
      if ((await token) === used) token = undefined;
    } else if (status === 429) {
      await sleep(Number(retryAfter ?? 1) * 1000);
    } else if (status === 0 || status >= 500) {
      await sleep(100);
    } else {
      throw new Error(`${method} ${path}: ${status} ${text.slice(0, 200)}`);
    }
  }
}

const get = (path: string) => send('GET', path) as Promise<Page>;

/** Every item of a listing, page by page. */
async function listing(path: string, query: string): Promise<Page['data']['items'] & object> {
  const items: NonNullable<Page['data']['items']> = [];
  let page = await get(`${path}?${query}`);
  for (;;) {
    items.push(...(page.data.items ?? []));
    if (!page.data.hasMore) return items;
    page = await get(`${path}?limit=1000&cursor=${encodeURIComponent(page.data.nextCursor!)}`);
  }
}

const started = performance.now();
await logIn();
const [invoices, deletedInvoices, clients, deletedClients, addressbook] = await Promise.all([
  listing('/invoice/invoices/', 'since=1&limit=1000'),
  listing('/invoice/invoices/', 'since=1&limit=1000&status=deleted'),
  listing('/client/clients/', 'since=1&limit=1000'),
  listing('/client/clients/', 'since=1&limit=1000&status=deleted'),
  listing('/client/addressbook/', 'since=1&limit=1000'),
]);
let records =
  invoices.length + deletedInvoices.length + clients.length + deletedClients.length + addressbook.length;
const work: Array<() => Promise<number>> = [];
for (const { id } of invoices) {
  const at = `/invoice/invoices/${encodeURIComponent(id)}`;
  work.push(
    async () => ((await get(at)).data as unknown as { lines?: unknown[] }).lines?.length ?? 0,
    async () => (await listing(`${at}/payments`, 'limit=1000')).length,
  );
}
for (const { id } of clients) {
  const at = `/client/clients/${encodeURIComponent(id)}`;
  work.push(
    async () => (await listing(`${at}/contacts`, 'limit=1000')).length,
    async () => (await listing(`${at}/addressbook`, 'limit=1000')).length,
  );
}
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < work.length) {
      const fetched = await work[next++]!();
      records += fetched;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
await pool.close();
process.stdout.write(`${JSON.stringify({ records, sends, seconds })}\n`);
