import { runMeasured } from './peak-rss.js';
import { median } from './sample.js';

/** What the product's process costs before it syncs anything. */
export interface StartupCost {
  readonly wallSeconds: number;
  readonly peakRssMb: number;
}

/** `tms-sync --help` loads every command; `tms-sync sync --help` only what `sync` needs. */
export interface Startup {
  readonly help: StartupCost;
  readonly syncHelp: StartupCost;
}

async function medianOf(args: readonly string[], repetitions: number): Promise<StartupCost> {
  const runs = [];
  for (let i = 0; i < repetitions; i++) runs.push(await runMeasured(['dist/tms-sync.js', ...args]));
  return {
    wallSeconds: median(runs.map((run) => run.wallSeconds)),
    peakRssMb: median(runs.map((run) => run.peakRssMb)),
  };
}

/** Medians of a few runs of each: the floor under every product row's wall time and RSS. */
export async function measureStartup(repetitions: number): Promise<Startup> {
  await runMeasured(['dist/tms-sync.js', '--version']); // a first start warms the file cache
  return {
    help: await medianOf(['--help'], Math.max(3, repetitions)),
    syncHelp: await medianOf(['sync', '--help'], Math.max(3, repetitions)),
  };
}
