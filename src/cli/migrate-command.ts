import type { Command } from 'commander';
import { loadSettings } from '../../config/load-settings.js';
import { openStore } from '../store/open-store.js';
import { runCommand } from './cli-failure.js';
import { cliLogger } from './cli-logger.js';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description("Create or upgrade the store's tables (the other commands also do it on start).")
    .action(() =>
      runCommand('migrate', async () => {
        const settings = loadSettings();
        const store = await openStore(settings.storeUrl, { migrate: false, logger: cliLogger(settings) });
        try {
          const summary = await store.migrate();
          process.stdout.write(`${JSON.stringify(summary)}\n`);
        } finally {
          await store.close();
        }
        return 0;
      }),
    );
}
