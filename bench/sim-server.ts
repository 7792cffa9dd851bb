// tms-sim in its own process, as `tms-sync sim` runs it, plus a request counter the benchmark reads:
//   node --import tsx bench/sim-server.ts --invoices N
// Prints `listening on URL`; GET /_bench/requests answers {"requests": N} (API requests only).
import { parseArgs } from 'node:util';
import { createSimServer } from '../src/sim/create-sim-server.js';

const { values } = parseArgs({ options: { invoices: { type: 'string', default: '200000' } } });
const invoices = Number(values.invoices);
// Room for every record's JSON and the creates of the incremental cycles: once the bounded cache
// evicts, each eviction scans the Map's deleted slots (V8) and serving drops from ~200k to ~7k
// records/s at 1,000,000 invoices, making the simulator the bottleneck.
const jsonCacheSize = Math.ceil(invoices * 1.5) + 10_000;
const { app } = createSimServer({ invoices, clients: 100, operators: 1, seed: 1, jsonCacheSize });
let requests = 0;
// Counted on the HTTP server itself, so no fastify hook changes the simulator's own path.
app.server.on('request', (request: { url?: string }) => {
  if (!request.url?.startsWith('/_')) requests++;
});
app.get('/_bench/requests', async () => ({ requests }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
