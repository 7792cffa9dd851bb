// tms-sim in its own process, as `tms-sync sim` runs it, with its JSON cache sized to the data set:
//   node --import tsx bench/sim-server.ts --invoices N
// Prints `listening on URL`; the benchmark counts requests with the simulator's GET /_sim/requests.
import { parseArgs } from 'node:util';
import { createSimServer } from '../src/sim/create-sim-server.js';

const { values } = parseArgs({ options: { invoices: { type: 'string', default: '200000' } } });
const invoices = Number(values.invoices);
// Room for every record's JSON and the creates of the incremental cycles, so the simulator serves
// at its fastest and is never what a row measures (a full cache evicts in O(1), but re-encodes).
const jsonCacheSize = Math.ceil(invoices * 1.5) + 10_000;
const { app } = createSimServer({ invoices, clients: 100, operators: 1, seed: 1, jsonCacheSize });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
