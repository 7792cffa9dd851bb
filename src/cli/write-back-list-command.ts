import type { Command as Program } from 'commander';
import { commandStatuses, isCommandStatus } from '../store/outbox/command.js';
import { runCommand, UsageError } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { jsonOutput } from './json-output.js';
import { withCliStore } from './with-cli-store.js';
import { formatCommands, reviewWarning } from './write-back-table.js';

interface ListFlags extends ConnectionFlag {
  status?: string;
  limit: string;
  json?: boolean;
}

/** `tms-sync commands`: the outbox, newest first. */
export function registerCommandsCommand(program: Program): void {
  program
    .command('commands')
    .description('List the write-back commands of the outbox, newest first (docs/write-back.md).')
    .option('--status <status>', `only this status: ${commandStatuses.join(', ')}`)
    .option('--limit <n>', 'at most this many', '50')
    .option('--json', 'print JSON')
    .addOption(connectionOption())
    .action((flags: ListFlags) =>
      runCommand('commands', async () => {
        if (flags.status !== undefined && !isCommandStatus(flags.status))
          throw new UsageError(
            `--status must be one of ${commandStatuses.join(', ')}, got "${flags.status}"`,
          );
        const limit = Number(flags.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer`);
        return withCliStore(flags.connection, async (store) => {
          const [commands, counts] = await Promise.all([
            store.commands.list({ status: flags.status, limit }),
            store.commands.counts(),
          ]);
          if (flags.json) process.stdout.write(jsonOutput({ commands, counts }));
          else process.stdout.write(formatCommands(commands));
          process.stderr.write(reviewWarning(counts));
          return 0;
        });
      }),
    );
}
