import type { Command } from 'commander';
import type { Settings } from '../../config/settings.js';
import { type StreamName, streams } from '../../config/streams.js';
import { loadConnection } from '../connections/load-connection.js';
import { configuredStreams } from '../sync/select-partitions.js';
import { dependenciesOf } from '../sync/stream-order.js';
import { partitionsOf } from '../sync/stream-partitions.js';
import { SyncConfigurationError } from '../sync/sync-errors.js';
import { runCommand } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { jsonOutput } from './json-output.js';
import { formatTable } from './text-table.js';

/** A stream of the catalogue as this configuration runs it. */
export interface StreamListing {
  readonly stream: string;
  readonly strategy: string;
  readonly source: string;
  /** The streams it reads from the store: its parent, or the stream whose rows give its ids. */
  readonly reads: readonly string[];
  /** Its partitions here; null when it lacks configuration (`missing` says which). */
  readonly partitions: string[] | null;
  readonly missing: string | null;
  /** Runs when no stream is named (`streams.include` less `streams.exclude`). */
  readonly selected: boolean;
  /** History mode on in this configuration (`streams.history`). */
  readonly history: boolean;
}

/** `tms-sync streams`: the catalogue, with what this configuration selects (Airbyte's `discover`). */
export function registerStreamsCommand(program: Command): void {
  program
    .command('streams')
    .description(
      'The stream catalogue: each stream with its source, what it reads, its partitions here, whether it is selected (streams.include/exclude) and whether history mode is on.',
    )
    .option('--json', 'print JSON')
    .addOption(connectionOption())
    .action((flags: { json?: boolean } & ConnectionFlag) =>
      runCommand('streams', async () => {
        const listing = listStreams(await loadConnection(flags.connection));
        process.stdout.write(flags.json ? jsonOutput(listing) : formatStreams(listing));
        return 0;
      }),
    );
}

export function listStreams(settings: Settings): StreamListing[] {
  const selected = new Set(configuredStreams(settings));
  return (Object.keys(streams) as StreamName[]).map((stream) => {
    const definition = streams[stream];
    let partitions: string[] | null = null;
    let missing: string | null = null;
    try {
      partitions = partitionsOf(stream, settings);
    } catch (error) {
      if (!(error instanceof SyncConfigurationError)) throw error;
      missing = error.setting;
    }
    return {
      stream,
      strategy: definition.strategy,
      source: `GET ${definition.path}`,
      reads: dependenciesOf(stream),
      partitions,
      missing,
      selected: selected.has(stream),
      history: settings.streams.history.includes(stream),
    };
  });
}

function formatStreams(listing: readonly StreamListing[]): string {
  const rows = listing.map((item) => [
    item.stream,
    item.strategy,
    item.reads.join(', '),
    partitionsText(item),
    item.selected ? 'yes' : 'no',
    item.history ? 'on' : '',
    item.source,
  ]);
  const selected = listing.filter((item) => item.selected).length;
  return (
    formatTable(['stream', 'strategy', 'reads', 'partitions', 'selected', 'history', 'source'], rows) +
    `\n${selected} of ${listing.length} streams selected (streams.include/exclude of the config file); a stream named on the command line runs regardless\n`
  );
}

/** `(default)`, `(default), deleted`, or the operators (the first few of many), or the setting it lacks. */
function partitionsText(item: StreamListing): string {
  if (item.partitions === null) return `none: set ${item.missing}`;
  const names = item.partitions.map((partition) => (partition === '' ? '(default)' : partition));
  if (names.length <= 4) return names.join(', ');
  return `${names.slice(0, 3).join(', ')}, ... (${names.length})`;
}
