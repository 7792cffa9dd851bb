import type { Command } from 'commander';
import { loadConnection } from '../connections/load-connection.js';
import { resolveStreams } from '../sync/sync-engine.js';
import { runCommand, UsageError } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { openCliStore } from './with-cli-store.js';

export function registerApproveDeletesCommand(program: Command): void {
  program
    .command('approve-deletes')
    .description(
      'Approve the deletes the mass-delete guard held back for a stream (all its held scopes, or the ones named): ' +
        'the next run of each scope applies them. `tms-sync status` lists what is held.',
    )
    .argument('<stream>', 'a stream of the catalogue')
    .argument(
      '[scope...]',
      "the held scopes to approve: an operator id, a parent's id, or '' for an unscoped stream",
    )
    .addOption(connectionOption())
    .action((stream: string, scopes: string[], flags: ConnectionFlag) =>
      runCommand('approve-deletes', async () => {
        const [name] = resolveStreams([stream]);
        const settings = await loadConnection(flags.connection);
        const store = await openCliStore(settings);
        try {
          const approved = await store.approveDeletes({
            stream: name!,
            ...(scopes.length > 0 ? { scopes } : {}),
          });
          if (approved.length === 0)
            throw new UsageError(
              `${name}: no held deletes${scopes.length ? ` in ${scopes.join(', ')}` : ''}`,
            );
          const where = approved.map((scope) => (scope === '' ? '(the whole stream)' : scope)).join(', ');
          process.stdout.write(`${name}: approved the held deletes of ${where}; the next run applies them\n`);
        } finally {
          await store.close();
        }
        return 0;
      }),
    );
}
