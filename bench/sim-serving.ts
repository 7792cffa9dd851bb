// Measures how fast tms-sim serves 1000-record pages to one undici client: the simulator runs in
// its own process (as `tms-sync sim`), the client pages through the invoices twice (cold: records
// generated; warm: cached JSON) and reports records/s with and without JSON.parse.
// Run: npx tsx bench/sim-serving.ts [invoices]
import { spawn } from 'node:child_process';
import { request } from 'undici';

const invoices = Number(process.argv[2] ?? 200_000);
const child = spawn(
  process.execPath,
  ['dist/tms-sync.js', 'sim', '--port', '0', '--invoices', String(invoices)],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const url = await new Promise<string>((resolve) => {
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(output);
    if (match) resolve(match[1]!);
  });
});

const login = await request(`${url}/auth/login-api-token`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ apiToken: 'dev-api-token' }),
});
const token = ((await login.body.json()) as { data: { items: [{ access: string }] } }).data.items[0].access;

async function pass(parse: boolean): Promise<{ records: number; seconds: number }> {
  const started = performance.now();
  let records = 0;
  let cursor: string | undefined;
  do {
    const query = cursor ? `limit=1000&cursor=${encodeURIComponent(cursor)}` : 'since=1&limit=1000';
    const response = await request(`${url}/invoice/invoices/?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await response.body.text();
    const meta = parse
      ? JSON.parse(text).data
      : { hasMore: text.includes('"hasMore":true'), nextCursor: /"nextCursor":"([^"]+)"/.exec(text)?.[1] };
    records += parse ? meta.items.length : 1000;
    cursor = meta.hasMore ? meta.nextCursor : undefined;
  } while (cursor);
  return { records, seconds: (performance.now() - started) / 1000 };
}

for (const [label, parse] of [
  ['cold, body.text() + JSON.parse', true],
  ['warm, body.text() + JSON.parse', true],
  ['warm, bytes only', false],
] as const) {
  const { records, seconds } = await pass(parse);
  process.stdout.write(
    `${label.padEnd(32)} ${Math.round(records / seconds).toLocaleString('en')} records/s (${records} records, ${seconds.toFixed(2)} s)\n`,
  );
}
child.kill('SIGTERM');
