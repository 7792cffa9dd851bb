import type { Command } from 'commander';
import {
  connectionsKey,
  encryptToken,
  generateConnectionsKey,
} from '../../config/connections/token-cipher.js';
import { loadSettings } from '../../config/load-settings.js';
import { withSecretFiles } from '../../config/secret-files.js';
import { runCommand, UsageError } from './cli-failure.js';
import { formatConnections, listConnections } from './connection-listing.js';

/** `tms-sync connections`: the configured connections, and the tools to write their tokens safely. */
export function registerConnectionsCommand(program: Command): void {
  const connections = program
    .command('connections')
    .description(
      'The TMS accounts this configuration mirrors, each with its destination (docs/connections.md).',
    );
  connections
    .command('list')
    .description(
      'The connections of the configuration, the default first: TMS host, destination, streams selected, operators, paused, where the token is kept (never the token).',
    )
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) =>
      runCommand('connections list', async () => {
        const listing = listConnections(loadSettings());
        process.stdout.write(
          flags.json ? `${JSON.stringify(listing, null, 2)}\n` : formatConnections(listing),
        );
        return 0;
      }),
    );
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
    .action(() =>
      runCommand('connections generate-key', async () => {
        process.stdout.write(`${generateConnectionsKey()}\n`);
        return 0;
      }),
    );
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
  process.stdout.write(`${encryptToken(token, key)}\n`);
  return 0;
}
