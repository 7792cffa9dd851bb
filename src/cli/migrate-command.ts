import type { Command } from 'commander';
import { loadConnection } from '../connections/load-connection.js';
import { redactUrl } from '../secrets/url-credentials.js';
import type { MigrationSummary } from '../store/store.js';
import { runCommand } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { formatTable } from './text-table.js';
import { openCliStore } from './with-cli-store.js';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description(
      "Create or upgrade the store's tables and views (the other commands also do it on start), and switch " +
        'history mode to streams.history of the config (so do sync and worker).',
    )
    .option(
      '--json',
      'print JSON: {"applied": [names], "history": {"enabled": [streams], "disabled": [streams]}}',
    )
    .addOption(connectionOption())
    .action((flags: { json?: boolean } & ConnectionFlag) =>
      runCommand('migrate', async () => {
        const settings = await loadConnection(flags.connection);
        const store = await openCliStore(settings, { migrate: false, history: settings.streams.history });
        try {
          const summary = await store.migrate();
          process.stdout.write(
            flags.json
              ? `${JSON.stringify(summary)}\n`
              : formatMigrations(summary, redactUrl(settings.storeUrl)),
          );
        } finally {
          await store.close();
        }
        return 0;
      }),
    );
}

/** The migrations applied, one line each with what it did (docs/store.md, "Migrations"), and where. */
export function formatMigrations({ applied, history }: MigrationSummary, store: string): string {
  const switched = [
    ...(history?.enabled ?? []).map((stream) => [`history ${stream}`, `history mode on: ${stream}__history`]),
    ...(history?.disabled ?? []).map((stream) => [`history ${stream}`, 'history mode off, versions kept']),
  ];
  if (applied.length === 0 && switched.length === 0) return `${store}: up to date, no migration to apply\n`;
  const rows = [...applied.map((name) => [name, whatItDoes(name)]), ...switched];
  const count = `${applied.length} migration${applied.length === 1 ? '' : 's'}`;
  return `${formatTable(['migration', 'does'], rows)}\n${store}: applied ${count}\n`;
}

function whatItDoes(name: string): string {
  const spec = /^stream-([a-z0-9_]+)-spec-([a-z0-9_]+)$/.exec(name);
  if (spec) return `adds column ${spec[1]}.${spec[2]}, filled from data`;
  const table = /^stream-([a-z0-9_]+)$/.exec(name);
  if (table) return `creates table ${table[1]} and view ${table[1]}_live`;
  // Numbered: `0007-live-views` -> `live views`.
  return name.replace(/^\d+[a-z]?-/, '').replaceAll('-', ' ');
}
