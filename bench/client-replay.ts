// The product's TMS client alone sending the requests a product run sent (as the simulator
// recorded them), as the plain client does (replay-client.mjs): what the client's layers cost
// beside the plain client, without the engine or the store. With --parse each answer is parsed as
// JSON, as the plain client parses it (not checked as a Driver list: the recorded requests include
// the REST listings and single resources). Prints one JSON line.
//   node --import tsx bench/client-replay.ts --url SIM_URL --requests FILE [--concurrency 16] [--parse]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { driverRequest } from '../src/client/api-calls.js';
import { createTmsClient } from '../src/client/index.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    requests: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    parse: { type: 'boolean', default: false },
  },
});
const concurrency = Number(values.concurrency);
const requests = readFileSync(values.requests!, 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('GET '))
  .map((line) => new URL(line.slice('GET '.length), 'http://x'));
const client = createTmsClient({
  baseUrl: values.url!,
  apiToken: 'dev-api-token',
  connections: concurrency,
  initialConcurrency: concurrency,
  requestsPerSecond: 1_000_000,
});
const started = performance.now();
const cpuBefore = process.cpuUsage();
await client.checkLogin();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < requests.length) {
      const url = requests[next++]!;
      const answer = await client.api.answer(
        driverRequest('GET', url.pathname, {}, { query: Object.fromEntries(url.searchParams) }),
      );
      if (values.parse) JSON.parse(answer.bytes.toString('utf8'));
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
await client.close();
process.stdout.write(
  `${JSON.stringify({ requests: requests.length + 1, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`,
);
