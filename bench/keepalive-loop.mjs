// The plain loop a careful developer would write to mirror the invoices, as a whole process
// (the speed targets): plain JavaScript run by node (no loader), node:http with a keep-alive Agent,
// the next page requested before this one is written, one prepared better-sqlite3 upsert per
// record, one transaction per page, WAL; both listings (default and status=deleted) in turn, each
// from its own stored watermark.
//   node bench/keepalive-loop.mjs --url URL --store PATH [--limit 500]
// Prints one JSON line: {records, pages, requests}.
import http from 'node:http';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

const { values } = parseArgs({
  options: { url: { type: 'string' }, store: { type: 'string' }, limit: { type: 'string', default: '500' } },
});
const base = new URL(values.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
let requests = 0;

function call(method, path, headers, body) {
  requests++;
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: base.hostname, port: base.port, method, path, headers, agent },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200)
            reject(new Error(`${method} ${path}: ${response.statusCode} ${text}`));
          else resolve(JSON.parse(text));
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const db = new Database(values.store);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`CREATE TABLE IF NOT EXISTS invoices (id TEXT PRIMARY KEY, data TEXT NOT NULL, sequence INTEGER,
  modified_at TEXT, deleted INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE IF NOT EXISTS watermarks (listing TEXT PRIMARY KEY, since INTEGER NOT NULL)`);
const upsert =
  db.prepare(`INSERT INTO invoices (id, data, sequence, modified_at, deleted) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (id) DO UPDATE SET data = excluded.data, sequence = excluded.sequence,
  modified_at = excluded.modified_at, deleted = excluded.deleted`);
const saveWatermark = db.prepare(
  'INSERT INTO watermarks (listing, since) VALUES (?, ?) ON CONFLICT (listing) DO UPDATE SET since = excluded.since',
);
const readWatermark = db.prepare('SELECT since FROM watermarks WHERE listing = ?');
const writePage = db.transaction((items, deleted, watermark, listing) => {
  for (const record of items)
    upsert.run(
      String(record.id),
      JSON.stringify(record),
      record.sequence,
      record.modifiedAt,
      deleted ? 1 : 0,
    );
  if (watermark !== undefined) saveWatermark.run(listing, watermark);
});

const login = await call(
  'POST',
  '/auth/login-api-token',
  { 'content-type': 'application/json' },
  '{"apiToken":"dev-api-token"}',
);
const auth = { authorization: `Bearer ${login.data.items[0].access}` };
let records = 0;
let pages = 0;
for (const status of ['', 'deleted']) {
  const since = readWatermark.get(status)?.since ?? 1;
  const filter = status ? `&status=${status}` : '';
  const path = `${base.pathname.replace(/\/$/, '')}/invoice/invoices/`;
  let next = call('GET', `${path}?since=${since}&limit=${values.limit}${filter}`, auth);
  for (;;) {
    const { data } = await next;
    if (data.hasMore)
      next = call(
        'GET',
        `${path}?limit=${values.limit}${filter}&cursor=${encodeURIComponent(data.nextCursor)}`,
        auth,
      );
    const items = data.items ?? [];
    writePage(items, status === 'deleted', data.hasMore ? undefined : data.maxSequence, status);
    records += items.length;
    pages++;
    if (!data.hasMore) break;
  }
}
db.close();
agent.destroy();
process.stdout.write(`${JSON.stringify({ records, pages, requests })}\n`);
