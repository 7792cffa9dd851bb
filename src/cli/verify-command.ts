import type { Command } from 'commander';
import { loadConnection } from '../connections/load-connection.js';
import { createSimAdminClient } from '../sim/sim-admin-client.js';
import { resolveStreams } from '../sync/sync-engine.js';
import { exitCodes, runCommand, UsageError } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { differencesFromTruth } from './store-vs-truth.js';
import { openCliStore } from './with-cli-store.js';

interface VerifyFlags extends ConnectionFlag {
  simUrl: string;
  adminToken: string;
  simAccount?: string;
  show: string;
}

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      "Compare the store with a running tms-sim's truth, stream by stream (a drill; needs the sim's admin token).",
    )
    .argument('[stream...]', 'streams to compare (default: all)')
    .requiredOption('--sim-url <url>', 'base URL of the simulator')
    .option('--admin-token <token>', 'the simulator admin token', 'dev-admin-token')
    .option('--sim-account <n>', "with a simulator serving several accounts: the connection's account (1..N)")
    .option('--show <n>', 'differences to print per stream', '10')
    .addOption(connectionOption())
    .addHelpText('after', '\nExit code: 0 when the store equals the truth, 1 when it differs.')
    .action((names: string[], flags: VerifyFlags) => runCommand('verify', () => verify(names, flags)));
}

async function verify(names: string[], flags: VerifyFlags): Promise<number> {
  const settings = await loadConnection(flags.connection);
  const account = flags.simAccount === undefined ? undefined : Number(flags.simAccount);
  if (account !== undefined && !(Number.isInteger(account) && account >= 1))
    throw new UsageError(`--sim-account: expected an account number from 1, got "${flags.simAccount}"`);
  const admin = createSimAdminClient({
    url: flags.simUrl,
    adminToken: flags.adminToken,
    ...(account === undefined ? {} : { account }),
  });
  const store = await openCliStore(settings);
  let differing = 0;
  try {
    for (const stream of resolveStreams(names)) {
      const differences = await differencesFromTruth(store, await admin.truth(stream), [stream]);
      const rows = await store.countRows(stream, { live: true });
      process.stdout.write(`${stream}: ${rows} live rows, ${differences.length} differences\n`);
      for (const line of differences.slice(0, Number(flags.show))) process.stdout.write(`  ${line}\n`);
      if (differences.length > 0) differing += 1;
    }
  } finally {
    await store.close();
  }
  return differing === 0 ? exitCodes.ok : exitCodes.failed;
}
