// tms-sim in its own process, as `tms-sync sim` runs it, with its JSON cache sized to the data set:
//   node --import tsx bench/sim-server.ts --invoices N [--clients N] [--operators N] [--ride-days N] [--latency-ms MS]
//     [--rate-limit RPS] [--faults PROFILE] [--token-ttl SECONDS] [--record]
// Prints `listening on URL`; the benchmark counts requests with the simulator's GET /_sim/requests.
// With --record, `GET /_bench/requests` answers the API requests served since the last call (method
// and URL, one per line, in the order answered), for a plain client to send the same ones.
import { parseArgs } from 'node:util';
import { createSimServer } from '../src/sim/create-sim-server.js';
import type { FaultProfileName } from '../src/sim/sim-options.js';

const { values } = parseArgs({
  options: {
    invoices: { type: 'string', default: '200000' },
    clients: { type: 'string', default: '100' },
    operators: { type: 'string', default: '1' },
    'ride-days': { type: 'string', default: '7' },
    'latency-ms': { type: 'string', default: '0' },
    'rate-limit': { type: 'string', default: '0' },
    faults: { type: 'string' },
    'token-ttl': { type: 'string', default: '3600' },
    record: { type: 'boolean', default: false },
  },
});
const invoices = Number(values.invoices);
// Room for every record's JSON and the creates of the incremental cycles, so the simulator serves
// at its fastest and is never what a row measures (a full cache evicts in O(1), but re-encodes).
const jsonCacheSize = Math.ceil(invoices * 1.5) + 10_000;
const latencyMs = Number(values['latency-ms']);
const { app } = createSimServer({
  invoices,
  clients: Number(values.clients),
  operators: Number(values.operators),
  rideDays: Number(values['ride-days']),
  seed: 1,
  jsonCacheSize,
  rateLimitPerSecond: Number(values['rate-limit']),
  tokenTtlSeconds: Number(values['token-ttl']),
  faults: (values.faults as FaultProfileName | undefined) ?? (latencyMs > 0 ? { latencyMs } : 'none'),
});
if (values.record) {
  let served: string[] = [];
  app.addHook('onResponse', async (request) => {
    if (!request.url.startsWith('/_')) served.push(`${request.method} ${request.url}`);
  });
  app.get('/_bench/requests', async (_request, reply) => {
    const lines = served;
    served = [];
    return reply.type('text/plain').send(lines.join('\n'));
  });
}
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
