import type { Command } from 'commander';
import { loadConnection } from '../connections/load-connection.js';
import type { ColumnReport } from '../store/store.js';
import { resolveStreams } from '../sync/sync-engine.js';
import { runCommand } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { jsonOutput } from './json-output.js';
import { formatTable } from './text-table.js';
import { openCliStore } from './with-cli-store.js';

export function registerSchemaCommand(program: Command): void {
  program
    .command('schema')
    .description(
      "Each stream table's typed columns: name, SQL type, the record field it holds, where it came from " +
        '(the spec, or inferred from the records received) and the values that did not fit it (drift).',
    )
    .argument('[stream...]', 'streams of the catalogue (default: all)')
    .option('--json', 'print JSON')
    .addOption(connectionOption())
    .action((names: string[], flags: { json?: boolean } & ConnectionFlag) =>
      runCommand('schema', async () => {
        const settings = await loadConnection(flags.connection);
        const wanted = new Set<string>(names.length > 0 ? resolveStreams(names) : []);
        const store = await openCliStore(settings);
        try {
          const columns = (await store.describeColumns()).filter(
            (column) => wanted.size === 0 || wanted.has(column.stream),
          );
          process.stdout.write(flags.json ? jsonOutput(columns) : formatSchema(columns));
        } finally {
          await store.close();
        }
        return 0;
      }),
    );
}

/** One table per stream; a stream without typed columns yet is not listed. */
export function formatSchema(columns: readonly ColumnReport[]): string {
  const streams = [...new Set(columns.map((column) => column.stream))];
  if (streams.length === 0) return 'no typed columns yet: they are inferred as records arrive\n';
  return streams
    .map((stream) => {
      const rows = columns
        .filter((column) => column.stream === stream)
        .map((column) => [
          column.column,
          column.sqlType,
          column.path,
          column.origin,
          column.drift === 0 ? '' : `${column.drift} (latest: ${column.driftSample})`,
        ]);
      return `${stream}\n${formatTable(['column', 'type', 'field', 'origin', 'drift'], rows, '  ')}`;
    })
    .join('\n');
}
