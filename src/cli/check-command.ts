import type { Command } from 'commander';
import { type CheckLine, runChecks } from '../check/run-checks.js';
import { loadConnection } from '../connections/load-connection.js';
import { createLogger } from '../logger.js';
import { formatSkipped, selectPartitions } from '../sync/select-partitions.js';
import { partitionLabel } from '../sync/stream-order.js';
import { clientFromSettings } from '../sync/sync-engine.js';
import { exitCodes, runCommand } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';

/** A check waits this long for a failing TMS, not the minutes a sync would. */
const checkClient = { patienceMs: 10_000, retry: { maxTotalMs: 3000 }, timeouts: { totalMs: 10_000 } };

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description(
      "Try the TMS as a sync would, once: the connection (TMS_BASE_URL), the login (TMS_API_TOKEN), and the first request of every selected stream partition (each operator's too); one line each.",
    )
    .addHelpText(
      'after',
      '\nNeeds no store and no Redis; writes nothing. Exit code: 0 every line ok, 1 one failed, 2 bad configuration.',
    )
    .addOption(connectionOption())
    .action((flags: ConnectionFlag) =>
      runCommand('check', async () => {
        const settings = await loadConnection(flags.connection);
        const logger = createLogger({ level: 'silent' });
        const client = clientFromSettings(settings, logger, checkClient);
        try {
          const started = performance.now();
          const selection = selectPartitions([], settings);
          const labels = selection.partitions.map((item) => partitionLabel(item).length);
          const width = Math.max('connection'.length, ...labels);
          const lines = await runChecks({
            settings,
            client,
            onLine: (line) => process.stdout.write(formatLine(line, width)),
          });
          for (const note of formatSkipped(selection.skipped)) process.stdout.write(`${note}\n`);
          const failed = lines.filter((line) => !line.ok).length;
          const seconds = ((performance.now() - started) / 1000).toFixed(1);
          process.stdout.write(
            failed === 0
              ? `check: all ${lines.length} passed in ${seconds} s\n`
              : `check: ${failed} of ${lines.length} FAILED (${seconds} s)\n`,
          );
          return failed === 0 ? exitCodes.ok : exitCodes.failed;
        } finally {
          await client.close();
        }
      }),
    );
}

function formatLine(line: CheckLine, width: number): string {
  return `${line.what.padEnd(width)}  ${(line.ok ? 'ok' : 'FAILED').padEnd(6)}  ${line.detail} (${line.ms} ms)\n`;
}
