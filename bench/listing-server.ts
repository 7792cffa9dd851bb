// A TMS listing that is not tms-sim, for the whole-process rows (the speed targets):
//   node --import tsx bench/listing-server.ts --records 200000 [--page-cap 500] [--deleted-share 0.01]
//     [--latency-ms 0]
// Prints `listening on URL`. Written from docs/api.md alone (Envelopes, Listings, Errors), with none of
// tms-sim's code and records of other shapes, so a row cannot pass on what tms-sim happens to do.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';

/** What `GET /_bench/stats` answers: the listing requests since the last reset, with wall-clock times. */
export interface ListingStats {
  /** `performance.timeOrigin + performance.now()` of the first listing request, or null. */
  readonly firstListingAtMs: number | null;
  readonly listingRequests: number;
  readonly logins: number;
  readonly items: number;
}

interface Listing {
  /** Serialized records, sorted by id (the default sort). */
  readonly json: readonly string[];
  readonly sequences: readonly number[];
}

interface Cursor {
  readonly at: number;
  readonly since: number | null;
  readonly snapshot: number;
}

const token = 'bench-access-token';
const defaultLimit = 100;

/** A deterministic generator (mulberry32): the same data set for every row and run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const states = ['draft', 'sent', 'overdue', 'settled', 'void'];
const words = ['freight', 'pallets', 'storage', 'customs', 'express', 'return', 'handling', 'fuel'];

/**
 * Invoices shaped unlike tms-sim's: a prefixed id, amounts as strings in an object, the customer
 * nested, epoch seconds beside ISO dates, a tag array, null memos. Sequences are a shuffle, not id
 * order. Soft-deleted ones are served only by `status=deleted` (spec 8, rule 6).
 */
function generate(records: number, deletedShare: number): { live: Listing; deleted: Listing; max: number } {
  const next = random(7);
  const sequences = Array.from({ length: records }, (_, i) => 1000 + i);
  for (let i = sequences.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [sequences[i], sequences[j]] = [sequences[j]!, sequences[i]!];
  }
  const live = { json: [] as string[], sequences: [] as number[] };
  const deleted = { json: [] as string[], sequences: [] as number[] };
  for (let i = 0; i < records; i++) {
    const isDeleted = next() < deletedShare;
    const issued = 1_735_689_600 + Math.floor(next() * 30_000_000);
    const net = Math.floor(next() * 1_000_000) / 100;
    const record = {
      id: `INV-${String(i + 1).padStart(8, '0')}`,
      sequence: sequences[i]!,
      modifiedAt: new Date((issued + 86_400) * 1000).toISOString(),
      invoiceNo: `${2025 + (i % 2)}/${String(i + 1).padStart(7, '0')}`,
      state: isDeleted ? 'deleted' : states[Math.floor(next() * states.length)],
      customer: {
        ref: `CUS${Math.floor(next() * 10_000)}`,
        name: `${words[i % words.length]} ${words[(i >> 3) % words.length]} Ltd`,
      },
      amounts: { net: net.toFixed(2), tax: (net * 0.21).toFixed(2), currency: 'EUR' },
      issued,
      dueOn: new Date((issued + 30 * 86_400) * 1000).toISOString().slice(0, 10),
      tags: [words[Math.floor(next() * words.length)], words[Math.floor(next() * words.length)]],
      memo: next() < 0.7 ? null : `${words[i % words.length]} for order ${Math.floor(next() * 1e6)}`,
      lineCount: 1 + Math.floor(next() * 9),
      audit: { createdBy: `user${i % 50}`, source: 'edi', revision: Math.floor(next() * 5) },
    };
    const into = isDeleted ? deleted : live;
    into.json.push(JSON.stringify(record));
    into.sequences.push(record.sequence);
  }
  return { live, deleted, max: 1000 + records - 1 };
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
const decodeCursor = (text: string): Cursor => JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));

/** The index of the next record at or after `from` newer than `since` (every one without `since`). */
function nextMatch(listing: Listing, from: number, since: number | null): number {
  let at = from;
  if (since !== null) while (at < listing.sequences.length && listing.sequences[at]! <= since) at++;
  return at;
}

function page(listing: Listing, cursor: Cursor, limit: number): { body: string; items: number } {
  const items: string[] = [];
  let pageMax = 0;
  let at = nextMatch(listing, cursor.at, cursor.since);
  while (at < listing.json.length && items.length < limit) {
    items.push(listing.json[at]!);
    pageMax = Math.max(pageMax, listing.sequences[at]!);
    at = nextMatch(listing, at + 1, cursor.since);
  }
  const hasMore = at < listing.json.length;
  const fields: string[] = [];
  // docs/api.md, Envelopes and Listings: items may be absent when empty; maxSequence is the cycle's snapshot with `since`, the
  // page's highest without it (omitted when the page carries none).
  if (items.length > 0) fields.push(`"items":[${items.join(',')}]`);
  if (hasMore) fields.push(`"nextCursor":"${encodeCursor({ ...cursor, at })}"`);
  fields.push(`"hasMore":${hasMore}`);
  const maxSequence = cursor.since !== null ? cursor.snapshot : items.length > 0 ? pageMax : undefined;
  if (maxSequence !== undefined) fields.push(`"maxSequence":${maxSequence}`);
  return { body: `{"data":{${fields.join(',')}}}`, items: items.length };
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

const failure = (status: number, message: string) => JSON.stringify({ problem: { status, message } });

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

function startListingServer(options: {
  records: number;
  pageCap: number;
  deletedShare: number;
  latencyMs: number;
}) {
  const data = generate(options.records, options.deletedShare);
  let stats = { firstListingAtMs: null as number | null, listingRequests: 0, logins: 0, items: 0 };

  const listing = (url: URL, response: ServerResponse) => {
    const status = url.searchParams.get('status');
    if (status !== null && status !== 'deleted') return send(response, 400, failure(400, 'unknown status'));
    const sinceText = url.searchParams.get('since');
    const since = sinceText === null ? null : Number(sinceText);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? defaultLimit), options.pageCap);
    if ((since !== null && !Number.isSafeInteger(since)) || !(limit >= 1))
      return send(response, 400, failure(400, 'bad since or limit'));
    const cursorText = url.searchParams.get('cursor');
    const cursor = cursorText ? decodeCursor(cursorText) : { at: 0, since, snapshot: data.max };
    const served = page(status === 'deleted' ? data.deleted : data.live, cursor, limit);
    stats.items += served.items;
    // A TMS across a network: the answer leaves after the round trip's worth of waiting.
    if (options.latencyMs > 0) setTimeout(() => send(response, 200, served.body), options.latencyMs);
    else send(response, 200, served.body);
  };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://listing');
    try {
      if (url.pathname === '/_bench/stats') return send(response, 200, JSON.stringify(stats));
      if (url.pathname === '/_bench/reset' && request.method === 'POST') {
        stats = { firstListingAtMs: null, listingRequests: 0, logins: 0, items: 0 };
        return send(response, 200, '{}');
      }
      if (url.pathname === '/auth/login-api-token' && request.method === 'POST') {
        const body = JSON.parse((await readBody(request)) || '{}') as { apiToken?: unknown };
        if (body.apiToken !== 'dev-api-token') return send(response, 401, failure(401, 'bad api token'));
        stats.logins += 1;
        const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
        return send(response, 200, JSON.stringify({ data: { items: [{ access: token, expiresAt }] } }));
      }
      if (/^\/invoice\/invoices\/?$/.test(url.pathname) && request.method === 'GET') {
        stats.firstListingAtMs ??= performance.timeOrigin + performance.now();
        stats.listingRequests += 1;
        if (request.headers.authorization !== `Bearer ${token}`)
          return send(response, 401, failure(401, 'missing or expired token'));
        return listing(url, response);
      }
      send(response, 404, failure(404, 'no such resource'));
    } catch {
      send(response, 400, failure(400, 'malformed request'));
    }
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

{
  const { values } = parseArgs({
    options: {
      records: { type: 'string', default: '200000' },
      'page-cap': { type: 'string', default: '500' },
      'deleted-share': { type: 'string', default: '0.01' },
      'latency-ms': { type: 'string', default: '0' },
    },
  });
  const server = startListingServer({
    records: Number(values.records),
    pageCap: Number(values['page-cap']),
    deletedShare: Number(values['deleted-share']),
    latencyMs: Number(values['latency-ms']),
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
