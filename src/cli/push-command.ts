import { hostname } from 'node:os';
import type { Command as Program } from 'commander';
import { loadConnection } from '../connections/load-connection.js';
import { createSyncEngine, type SyncEngine } from '../sync/sync-engine.js';
import { describeError } from '../tms-sync-error.js';
import type { Delivery } from '../write-back/deliver-command.js';
import { touchedStreams } from '../write-back/drain-outbox.js';
import { pushOutbox } from '../write-back/push-outbox.js';
import { exitCodes, runCommand } from './cli-failure.js';
import { cliLogger } from './cli-logger.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { formatSummary } from './summary-table.js';
import { allSucceeded, runShowingProgress, runWithSignals } from './sync-command.js';
import { formatCommands, reviewWarning } from './write-back-table.js';

export function registerPushCommand(program: Program): void {
  program
    .command('push')
    .description(
      'Deliver the write-back commands of the outbox to the TMS, once, each exactly once (docs/write-back.md).',
    )
    .option('--sync', 'then sync the streams the delivered commands changed')
    .addHelpText(
      'after',
      '\nExit code: 0 when every command it handled is done and none in the outbox needs review; 1 when one failed,\n' +
        'one needs review (a warning names them), the TMS could not be reached, or a --sync run failed; 2 for bad usage or configuration.',
    )
    .addOption(connectionOption())
    .action((flags: PushFlags) => runCommand('push', () => push(flags)));
}

interface PushFlags extends ConnectionFlag {
  sync?: boolean;
}

async function push(flags: PushFlags): Promise<number> {
  const settings = await loadConnection(flags.connection);
  const logger = cliLogger(settings);
  const engine = await createSyncEngine({ settings, logger });
  try {
    const report = await runWithSignals((signal) =>
      pushOutbox({
        client: engine.context.client,
        outbox: engine.context.store.commands,
        owner: `push:${hostname()}:${process.pid}`,
        settings: settings.commands,
        logger,
        signal,
      }),
    );
    const handled = await engine.context.store.commands.list({
      ids: [...new Set(report.deliveries.map((delivery) => delivery.command.id))],
      limit: report.deliveries.length,
    });
    process.stdout.write(handled.length ? formatCommands(handled) : 'no commands to deliver\n');
    if (report.refused > 0)
      process.stdout.write(
        `${report.refused} refused at admission (failed; see tms-sync commands --status failed)\n`,
      );
    if (report.halted !== undefined)
      process.stderr.write(`tms-sync push: stopped: ${describeError(report.halted)}\n`);
    const synced = await followUp(engine, report.deliveries, flags.sync === true);
    const counts = await engine.context.store.commands.counts();
    process.stderr.write(reviewWarning(counts));
    const clean =
      report.halted === undefined &&
      report.refused === 0 &&
      handled.every((command) => command.status === 'done') &&
      !counts.some((count) => count.status === 'needs_review');
    return clean && synced ? exitCodes.ok : exitCodes.failed;
  } finally {
    await engine.close();
  }
}

/** The streams the done commands changed: synced now with `--sync`, else named for the next run. */
async function followUp(
  engine: SyncEngine,
  deliveries: readonly Delivery[],
  sync: boolean,
): Promise<boolean> {
  const streams = touchedStreams(deliveries);
  if (streams.length === 0) return true;
  if (!sync) {
    process.stdout.write(
      `the mirror shows these changes after the next run of ${streams.join(', ')} (the worker's schedule, or tms-sync sync ${streams.join(' ')}; push --sync runs it now)\n`,
    );
    return true;
  }
  const summaries = await runShowingProgress(engine, streams);
  process.stdout.write(formatSummary(summaries));
  return allSucceeded(summaries);
}
