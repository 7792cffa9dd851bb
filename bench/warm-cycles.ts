// The same sync run again and again in one process, as a long-lived caller of the engine runs it:
// what a cycle costs once V8 has compiled the engine, beside what the first one costs. The first
// cycle of a one-shot `tms-sync sync` pays for that compiling; the partitions group measures that.
//   npx tsx bench/warm-cycles.ts [--cycles 5] [STREAM ...]
// Reads the settings as `tms-sync sync` does (TMS_BASE_URL, STORE_URL, TMS_OPERATORS, ...), every
// stream when none is named. Prints one line a cycle: partitions, requests, wall and CPU (every
// thread of the process: V8's compiling and the SQLite thread included).
import { parseArgs } from 'node:util';
import { cliLogger } from '../src/cli/cli-logger.js';
import { loadConnection } from '../src/connections/load-connection.js';
import { createSyncEngine } from '../src/sync/sync-engine.js';

const { values, positionals } = parseArgs({
  options: { cycles: { type: 'string', default: '5' } },
  allowPositionals: true,
});
const cycles = Number(values.cycles);
if (!Number.isInteger(cycles) || cycles < 1) {
  process.stderr.write(`warm-cycles: --cycles expects a whole number from 1, got ${values.cycles}\n`);
  process.exit(2);
}

const settings = await loadConnection();
const engine = await createSyncEngine({ settings, logger: cliLogger(settings) });
try {
  let requestsBefore = 0;
  for (let cycle = 1; cycle <= cycles; cycle++) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const summaries = await engine.run(positionals, { trigger: 'cli' });
    const cpu = process.cpuUsage(cpuBefore);
    const { requests } = engine.context.client.traffic();
    const failed = summaries.filter((summary) => summary.result !== 'succeeded').length;
    process.stdout.write(
      `cycle ${cycle}: ${summaries.length} partitions${failed ? ` (${failed} not succeeded)` : ''}, ` +
        `${requests - requestsBefore} requests, ${((performance.now() - started) / 1000).toFixed(2)} s, ` +
        `CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s\n`,
    );
    requestsBefore = requests;
  }
} finally {
  await engine.close();
}
