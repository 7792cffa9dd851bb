import { Command, CommanderError } from 'commander';
import { commands } from './commands.js';

/** Exit codes of every command: 0 success, 1 a stream or job failed, 2 bad usage or configuration. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

const program = new Command('tms-sync')
  .description('Mirror a transport management system (TMS) into SQLite or PostgreSQL.')
  .version(process.env.npm_package_version ?? '0.1.0')
  .showHelpAfterError()
  .exitOverride();

for (const register of commands) register(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
  } else {
    throw error;
  }
}
