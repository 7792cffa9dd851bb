import type { Command } from 'commander';
import { loadSettings } from '../../config/load-settings.js';
import { openStore } from '../store/open-store.js';
import { resolveStreams } from '../sync/sync-engine.js';
import { runCommand, UsageError } from './cli-failure.js';
import { cliLogger } from './cli-logger.js';

export function registerResetCommand(program: Command): void {
  program
    .command('reset')
    .description(
      'Forget the watermark and checkpoint of the streams (the next run is a full backfill); keeps the data.',
    )
    .argument('<stream...>', 'streams of the catalogue')
    .action((names: string[]) =>
      runCommand('reset', async () => {
        if (names.length === 0) throw new UsageError('name at least one stream');
        const settings = loadSettings();
        const streams = resolveStreams(names);
        const store = await openStore(settings.storeUrl, { logger: cliLogger(settings) });
        try {
          for (const stream of streams) {
            const partitions = await store.resetState(stream);
            process.stdout.write(
              `${stream}: reset (${partitions} partition${partitions === 1 ? '' : 's'})\n`,
            );
          }
        } finally {
          await store.close();
        }
        return 0;
      }),
    );
}
