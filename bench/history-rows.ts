import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PgDatabases } from './postgres.js';
import { runProduct } from './product-run.js';
import { median } from './sample.js';
import type { SimProcess } from './sim-process.js';
import { removeSqlite } from './sqlite-files.js';

/** One product run of the history group: a backfill or a 1% cycle, with history mode on or off. */
export interface HistorySample {
  readonly database: 'sqlite' | 'postgres';
  readonly phase: 'backfill' | '1% cycle';
  readonly history: boolean;
  readonly records: number;
  /** The sync itself (`sync_runs`), as the backfill rows measure it. */
  readonly seconds: number;
}

/** A (database, phase) pair: the same rows synced without and with history; the ratio is the median of per-repetition ratios. */
export interface HistorySummary {
  readonly database: 'sqlite' | 'postgres';
  readonly phase: HistorySample['phase'];
  readonly records: number;
  readonly secondsOff: number;
  readonly secondsOn: number;
  readonly ratio: number;
  readonly samples: readonly HistorySample[];
}

export interface HistoryOptions {
  readonly sim: SimProcess;
  readonly workDir: string;
  readonly pg: PgDatabases | undefined;
  readonly records: number;
  readonly repetitions: number;
  readonly log: (line: string) => void;
}

/**
 * The cost of history mode (docs/history.md): per repetition and database, two fresh stores
 * backfilled from the same simulator, one with `streams.history: ["invoices"]` and one without
 * (in turns, the order swapped each repetition); then 1% of the invoices change once and both
 * stores sync the same changes.
 */
export async function measureHistory(options: HistoryOptions): Promise<HistorySample[]> {
  const config = join(options.workDir, 'history.json');
  writeFileSync(config, JSON.stringify({ streams: { history: ['invoices'] } }));
  const databases = options.pg ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
  const samples: HistorySample[] = [];
  for (let repetition = 0; repetition < options.repetitions; repetition++) {
    for (const database of databases) {
      const modes = repetition % 2 === 0 ? [false, true] : [true, false];
      const stores = new Map<boolean, string>();
      const lastRuns = new Map<boolean, number>();
      try {
        for (const history of modes) {
          const url = await freshStore(options, database, `history-${history}-${repetition}`);
          stores.set(history, url);
          const run = await runProduct({
            simUrl: options.sim.url,
            storeUrl: url,
            ...(history ? { configPath: config } : {}),
          });
          lastRuns.set(history, run.lastRunId);
          samples.push({ database, phase: 'backfill', history, records: run.records, seconds: run.seconds });
          options.log(
            `  ${repetition + 1}/${options.repetitions} ${database} backfill, history ${history ? 'on' : 'off'}: ${run.seconds.toFixed(2)} s`,
          );
        }
        const count = Math.max(1, Math.round(options.records * 0.01));
        await options.sim.changeInvoices(count, 5000 + repetition * 10 + (database === 'sqlite' ? 0 : 1));
        for (const history of modes) {
          const run = await runProduct({
            simUrl: options.sim.url,
            storeUrl: stores.get(history)!,
            afterRunId: lastRuns.get(history)!,
            ...(history ? { configPath: config } : {}),
          });
          samples.push({ database, phase: '1% cycle', history, records: run.records, seconds: run.seconds });
          options.log(
            `  ${repetition + 1}/${options.repetitions} ${database} 1% cycle, history ${history ? 'on' : 'off'}: ${run.seconds.toFixed(2)} s`,
          );
        }
      } finally {
        for (const url of stores.values()) await dropStore(options, url);
      }
    }
  }
  return samples;
}

async function freshStore(
  options: HistoryOptions,
  database: 'sqlite' | 'postgres',
  name: string,
): Promise<string> {
  if (database === 'postgres') return options.pg!.fresh();
  return `sqlite:${join(options.workDir, `${name}.sqlite`)}`;
}

async function dropStore(options: HistoryOptions, url: string): Promise<void> {
  if (url.startsWith('sqlite:')) removeSqlite(url.slice('sqlite:'.length));
  else await options.pg!.drop(url);
}

export function summarizeHistory(samples: readonly HistorySample[]): HistorySummary[] {
  const out: HistorySummary[] = [];
  for (const database of ['sqlite', 'postgres'] as const) {
    for (const phase of ['backfill', '1% cycle'] as const) {
      const of = (history: boolean) =>
        samples.filter((s) => s.database === database && s.phase === phase && s.history === history);
      const [off, on] = [of(false), of(true)];
      if (off.length === 0 || on.length !== off.length) continue;
      out.push({
        database,
        phase,
        records: median(on.map((s) => s.records)),
        secondsOff: median(off.map((s) => s.seconds)),
        secondsOn: median(on.map((s) => s.seconds)),
        ratio: median(on.map((s, i) => s.seconds / off[i]!.seconds)),
        samples: [...off, ...on],
      });
    }
  }
  return out;
}

export function formatHistory(rows: readonly HistorySummary[]): string {
  const line = (values: readonly string[]) => `| ${values.join(' | ')} |`;
  const header = ['sync invoices', 'records', 'history off s', 'history on s', 'on / off'];
  const cells = rows.map((row) => [
    `${row.phase} (${row.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`,
    String(row.records),
    row.secondsOff.toFixed(2),
    row.secondsOn.toFixed(2),
    `${row.ratio.toFixed(2)}x`,
  ]);
  return [line(header), line(header.map(() => '---')), ...cells.map(line)].join('\n');
}
