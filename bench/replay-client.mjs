// The plain client of the partitions group: it sends the requests a product run sent (as the
// simulator recorded them), `--concurrency` in flight over one keep-alive undici Pool, parses
// each answer and stores nothing. It needs no walk of its own: knowing every request up front, it
// never waits for one answer to learn the next, so it is the floor of what those requests cost.
// Plain JavaScript run by node (no loader), so its whole process compares with the product's.
//   node bench/replay-client.mjs --url SIM_URL --requests FILE [--concurrency 16]
// FILE: one `METHOD URL` per line. Prints one JSON line: {requests, seconds, cpuSeconds}, its
// time from its first request (the login) to its last answer.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    requests: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
  },
});
const concurrency = Number(values.concurrency);
const paths = readFileSync(values.requests, 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('GET '))
  .map((line) => line.slice('GET '.length));
const pool = new Pool(values.url, { connections: concurrency });

async function send(method, path, headers, body) {
  const response = await pool.request({ method, path, headers, body });
  const text = await response.body.text();
  if (response.statusCode !== 200)
    throw new Error(`${method} ${path}: ${response.statusCode} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const started = performance.now();
const cpuBefore = process.cpuUsage();
const login = await send(
  'POST',
  '/auth/login-api-token',
  { 'content-type': 'application/json' },
  JSON.stringify({ apiToken: 'dev-api-token' }),
);
const authorization = `Bearer ${login.data.items[0].access}`;
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < paths.length) await send('GET', paths[next++], { authorization });
  }),
);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
await pool.close();
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stdout.write(`${JSON.stringify({ requests: paths.length + 1, seconds, cpuSeconds })}\n`);
