// The simulator's own capacity for child requests (the speed targets), in its own process: a plain
// loop of `--concurrency` requests in flight over one keep-alive undici Pool, fetching for every
// live invoice its detail and payments and for every live client its contacts and address book,
// exactly the requests the product's child streams make, nothing else (no store, no retries).
//   node --import tsx bench/child-loop.ts --url SIM_URL --concurrency 16
// Prints one JSON line: {requests, seconds} (the listing of the parents first is not timed).
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: { url: { type: 'string' }, concurrency: { type: 'string', default: '16' } },
});
const concurrency = Number(values.concurrency);
const pool = new Pool(values.url!, { connections: concurrency });
let requests = 0;
let headers: Record<string, string> = {};

async function get(
  path: string,
): Promise<{ data: { items?: { id: string }[]; nextCursor?: string; hasMore?: boolean } }> {
  requests++;
  const response = await pool.request({ method: 'GET', path, headers });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}: ${text}`);
  return JSON.parse(text);
}

/** Every page of a listing, `query` on the first page only (the cursor carries it after). */
async function listing(path: string, query: string): Promise<{ id: string }[]> {
  const items: { id: string }[] = [];
  let page = await get(`${path}?${query}`);
  for (;;) {
    items.push(...(page.data.items ?? []));
    if (!page.data.hasMore) return items;
    page = await get(`${path}?limit=1000&cursor=${encodeURIComponent(page.data.nextCursor!)}`);
  }
}

const login = await pool.request({
  method: 'POST',
  path: '/auth/login-api-token',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ apiToken: 'dev-api-token' }),
});
const access = ((await login.body.json()) as { data: { items: [{ access: string }] } }).data.items[0].access;
headers = { authorization: `Bearer ${access}` };

const invoices = await listing('/invoice/invoices/', 'since=1&limit=1000');
const clients = await listing('/client/clients/', 'since=1&limit=1000');
const work: Array<() => Promise<unknown>> = [];
for (const { id } of invoices) {
  const at = `/invoice/invoices/${encodeURIComponent(id)}`;
  work.push(
    () => get(at),
    () => listing(`${at}/payments`, 'limit=1000'),
  );
}
for (const { id } of clients) {
  const at = `/client/clients/${encodeURIComponent(id)}`;
  work.push(
    () => listing(`${at}/contacts`, 'limit=1000'),
    () => listing(`${at}/addressbook`, 'limit=1000'),
  );
}

requests = 0;
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < work.length) await work[next++]!();
  }),
);
const seconds = (performance.now() - started) / 1000;
await pool.close();
process.stdout.write(`${JSON.stringify({ requests, seconds })}\n`);
