import type { Command } from 'commander';
import { streams } from '../../config/streams.js';
import { loadConnection } from '../connections/load-connection.js';
import type { StoredVersion } from '../store/store.js';
import { scopeColumnOf } from '../store/stream-tables.js';
import { resolveStreams } from '../sync/sync-engine.js';
import { runCommand, UsageError } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { jsonOutput } from './json-output.js';
import { formatTable } from './text-table.js';
import { openCliStore } from './with-cli-store.js';

export function registerHistoryCommand(program: Command): void {
  program
    .command('history')
    .description(
      "A record's versions from <stream>__history, oldest first: when each began and ended, what opened it " +
        '(insert, update, delete, restore), the run that saw it, and the fields that changed. The stream needs ' +
        'history mode (streams.history in the config, docs/history.md).',
    )
    .argument('<stream>', 'a stream of the catalogue')
    .argument('<id>', "the record's key")
    .option('--scope <scope>', "the record's scope on a scoped stream: the operator id, or the parent's id")
    .option('--json', 'print JSON: the versions with their data and typed columns')
    .addOption(connectionOption())
    .action((stream: string, id: string, flags: { scope?: string; json?: boolean } & ConnectionFlag) =>
      runCommand('history', async () => {
        const [name] = resolveStreams([stream]);
        checkScope(name!, flags.scope);
        const settings = await loadConnection(flags.connection);
        const store = await openCliStore(settings);
        try {
          const versions = await store.history(name!, {
            id,
            ...(flags.scope === undefined ? {} : { scope: flags.scope }),
          });
          if (versions.length === 0) throw new UsageError(`${name}: no versions of ${id}`);
          process.stdout.write(flags.json ? jsonOutput(versions) : formatVersions(versions));
        } finally {
          await store.close();
        }
        return 0;
      }),
    );
}

/** A scoped stream's record needs `--scope` (its key is the scope and the id); another's takes none. */
function checkScope(stream: keyof typeof streams, scope: string | undefined): void {
  const column = scopeColumnOf(streams[stream]);
  if (column !== null && !scope)
    throw new UsageError(
      `${stream} records are keyed by ${column} and id: name the record's ${column} with --scope <${column}>`,
    );
  if (column === null && scope !== undefined)
    throw new UsageError(`${stream} has no scope: leave --scope out (its records are keyed by id alone)`);
}

/** One line per version; `changed` names the record's top-level fields that differ from the version before. */
export function formatVersions(versions: readonly StoredVersion[]): string {
  const rows = versions.map((version, index) => [
    version.validFrom.toISOString(),
    version.validTo?.toISOString() ?? '(current)',
    version.change,
    version.run === null ? '' : String(version.run),
    version.sequence === null ? '' : String(version.sequence),
    version.deletedReason ?? '',
    index === 0 ? '' : changedFields(versions[index - 1]!.data, version.data).join(', '),
  ]);
  return formatTable(['valid_from', 'valid_to', 'change', 'run', 'sequence', 'deleted', 'changed'], rows);
}

function changedFields(before: unknown, after: unknown): string[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter(
    (field) => JSON.stringify(a[field]) !== JSON.stringify(b[field]),
  );
}
