import type { Command } from 'commander';
import {
  connectionsKey,
  encryptToken,
  generateConnectionsKey,
} from '../../config/connections/token-cipher.js';
import { loadSettings } from '../../config/load-settings.js';
import { withSecretFiles } from '../../config/secret-files.js';
import { withControlTable } from '../connections/load-connection.js';
import { refreshUnionViews, type UnionViewsReport } from '../connections/union-views.js';
import { redactSecrets } from '../secrets/secret-registry.js';
import { exitCodes, runCommand, UsageError } from './cli-failure.js';
import { addConnection, removeConnection, setConnectionPaused } from './connection-changes.js';
import type { ConnectionEntryFlags } from './connection-entry.js';
import { formatConnections, listConnections } from './connection-listing.js';
import { jsonOutput } from './json-output.js';

const tokenForms = 'env:NAME, file:/path or enc:v1:... (encrypt-token), never the token itself';

/** `tms-sync connections`: the configured connections, changes to them, and tools to keep their tokens safe. */
export function registerConnectionsCommand(program: Command): void {
  const connections = program
    .command('connections')
    .description(
      'The TMS accounts this configuration mirrors, each with its destination (docs/connections.md).',
    );
  connections
    .command('list')
    .description(
      'The connections, the default first: where each is configured (environment, file, cli), TMS host, destination, streams selected, operators, paused, where the token is kept (never the token).',
    )
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) =>
      runCommand('connections list', async () => {
        const file = loadSettings();
        // The config file's connections are listed even when the control table cannot be read.
        const read = await withControlTable(file).then(
          (settings) => ({ settings, problem: undefined }),
          (error: unknown) => ({ settings: file, problem: (error as Error).message }),
        );
        const listing = listConnections(read.settings, new Set(Object.keys(file.connections)));
        process.stdout.write(flags.json ? jsonOutput(listing) : formatConnections(listing));
        if (read.problem === undefined) return exitCodes.ok;
        process.stderr.write(
          `tms-sync connections list: not listed, those added with \`connections add\`: ${redactSecrets(read.problem)}\n`,
        );
        return exitCodes.failed;
      }),
    );
  registerChanges(connections);
  registerViews(connections);
  registerTokenTools(connections);
}

function registerViews(connections: Command): void {
  connections
    .command('views')
    .description(
      "PostgreSQL: make, in one schema of the default connection's database, a view per stream (and live view) that unions it over every connection mirrored in that database, with a column `connection` first and the columns they share.",
    )
    .option('--schema <schema>', 'the schema of the views', 'tms_all')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nMade again from scratch each run. A running `worker --all-connections` keeps them in CONNECTION_VIEWS\n' +
        '(default tms_all) as connections and columns change. Example:\n' +
        'select connection, count(*) from tms_all.invoices_live group by connection;',
    )
    .action((flags: { schema: string; json?: boolean }) =>
      runCommand('connections views', async () => {
        const report = await refreshUnionViews(await withControlTable(loadSettings()), {
          schema: flags.schema,
        });
        process.stdout.write(flags.json ? jsonOutput(report) : formatViews(report));
        return exitCodes.ok;
      }),
    );
}

function formatViews(report: UnionViewsReport): string {
  const skipped = report.skipped.map((item) => `left out: ${item.connection} (${item.reason})\n`).join('');
  return (
    `${report.views.length} views in schema ${report.schema} over ${report.connections.length} connections ` +
    `(${report.connections.join(', ')})\n${skipped}` +
    `e.g. select connection, count(*) from ${report.schema}.invoices_live group by connection;\n`
  );
}

function registerChanges(connections: Command): void {
  connections
    .command('add')
    .description(
      "Add a connection to the control table of the default connection's store: checked as the config file's entries are; workers pick it up without a restart.",
    )
    .argument('<name>', 'lower-case letters, digits and "_", starting with a letter')
    .option('--api-token <reference>', `its API token: ${tokenForms}`)
    .option('--driver-token <reference>', `its driver JWT: ${tokenForms}`)
    .option('--base-url <url>', "the TMS base URL (default: the default connection's)")
    .option('--operators <ids>', 'its operators, comma-separated')
    .option(
      '--store-url <url>',
      "its own store (default: schema tms_<name>, or <name>.sqlite beside the default's)",
    )
    .option('--store-schema <schema>', 'PostgreSQL: its schema')
    .option('--include <streams>', 'only these streams, comma-separated')
    .option('--exclude <streams>', 'not these streams, comma-separated')
    .option('--max-rps <n>', "its TMS's allowance in requests per second")
    .option(
      '--entry <json>',
      'any key of a config-file connection entry, as a JSON object (the flags above win)',
    )
    .option('--paused', 'added paused')
    .action((name: string, flags: ConnectionEntryFlags) =>
      runCommand('connections add', async () => say(await addConnection(name, flags))),
    );
  for (const [verb, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    connections
      .command(verb)
      .description(
        paused
          ? 'Pause a connection: the workers of it take no new job within seconds (a run in hand finishes); nothing else changes.'
          : 'Resume a paused connection: its workers take jobs again within seconds.',
      )
      .argument('<name>', 'a connection of the config file or the control table')
      .action((name: string) =>
        runCommand(`connections ${verb}`, async () => say(await setConnectionPaused(name, paused))),
      );
  }
  connections
    .command('remove')
    .description(
      'Remove a connection added with `connections add` (one of the config file is taken out there); its destination and data are kept.',
    )
    .argument('<name>', 'a connection of the control table')
    .action((name: string) =>
      runCommand('connections remove', async () => say(await removeConnection(name))),
    );
}

function registerTokenTools(connections: Command): void {
  connections
    .command('encrypt-token')
    .description(
      'Read a token on stdin and print it encrypted with TMS_CONNECTIONS_KEY (AES-256-GCM), as "enc:v1:...", for a connection\'s apiToken or driverToken.',
    )
    .addHelpText('after', '\nExample: printf %s "$TOKEN" | tms-sync connections encrypt-token\n')
    .action(() => runCommand('connections encrypt-token', encryptFromStdin));
  connections
    .command('generate-key')
    .description('Print a new random key for TMS_CONNECTIONS_KEY (32 bytes, base64).')
    .action(() => runCommand('connections generate-key', async () => say(generateConnectionsKey())));
}

function say(line: string): number {
  process.stdout.write(`${line}\n`);
  return 0;
}

/** The token comes on stdin, never as an argument: arguments show in `ps` and in shell history. */
async function encryptFromStdin(): Promise<number> {
  const key = connectionsKey(withSecretFiles(process.env));
  if (process.stdin.isTTY) process.stderr.write('type the token, then Enter and Ctrl-D\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const token = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (token.trim() === '') throw new UsageError('no token on stdin');
  return say(encryptToken(token, key));
}
