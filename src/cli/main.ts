import { Command, CommanderError } from 'commander';
import { exitCodes } from './cli-failure.js';
import { commandsFor } from './commands.js';

// Output piped into `head` and the like may close early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(exitCodes.ok);
  throw error;
});

const program = new Command('tms-sync')
  .description('Mirror a transport management system (TMS) into SQLite or PostgreSQL.')
  .version(process.env.npm_package_version ?? '0.1.0')
  // Usage errors are one line on stderr (exit code 2); the help stays one flag away.
  .configureOutput({
    outputError: (text, write) =>
      write(
        `tms-sync: ${text
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ')} (see --help)\n`,
      ),
  })
  .exitOverride();

async function main(): Promise<void> {
  for (const register of await commandsFor(process.argv.slice(2))) register(program);
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
  }
}

// A failure no command caught ends the process, printed, with exit code 1.
void main();
