import { runMeasured } from './peak-rss.js';
import { median } from './sample.js';

/** What the product's process costs before it syncs anything: `tms-sync --help` loads every command. */
export interface StartupCost {
  readonly wallSeconds: number;
  readonly peakRssMb: number;
}

/** Medians of a few `node bin/tms-sync.js --help` runs: the floor under every product row's wall time and RSS. */
export async function measureStartup(repetitions: number): Promise<StartupCost> {
  const runs = [];
  for (let i = 0; i < repetitions; i++) runs.push(await runMeasured(['bin/tms-sync.js', '--help']));
  return {
    wallSeconds: median(runs.map((run) => run.wallSeconds)),
    peakRssMb: median(runs.map((run) => run.peakRssMb)),
  };
}
