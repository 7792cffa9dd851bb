import { join } from 'node:path';
import { openStore } from '../src/store/open-store.js';
import { addInvoiceColumns } from './invoice-row.js';
import type { LoopName, LoopResult } from './loop-child.js';
import { runScript } from './peak-rss.js';
import type { PgDatabases } from './postgres.js';
import { runProduct } from './product-run.js';
import { type Measured, type Sample, sampled } from './sample.js';
import type { SimProcess } from './sim-process.js';
import { removeSqlite } from './sqlite-files.js';

/** What the backfill rows need: the simulator, a scratch folder, PostgreSQL when it takes part. */
export interface BackfillContext {
  readonly sim: SimProcess;
  readonly workDir: string;
  readonly pg: PgDatabases | undefined;
}

/** A row of the table measured as a full backfill; `measure` is one repetition. */
export interface BackfillRow {
  readonly id: string;
  readonly label: string;
  readonly database: 'sqlite' | 'postgres' | 'none';
  measure(ctx: BackfillContext, repetition: number): Promise<Sample>;
}

/** Runs a loop child against the simulator; `store` is prepared (migrated) by the caller. */
async function loopChild(ctx: BackfillContext, loop: LoopName, store?: string): Promise<Measured> {
  const args = ['--loop', loop, '--url', ctx.sim.url, ...(store ? ['--store', store] : [])];
  const { result, wallSeconds, peakRssMb } = await runScript<LoopResult>('bench/loop-child.ts', args);
  return { ...result, wallSeconds, peakRssMb };
}

/** A fresh store with the product's tables (migrated) and the typed columns it infers, so the loops write the same layout. */
async function migrated(url: string): Promise<string> {
  await (await openStore(url)).close();
  await addInvoiceColumns(url);
  return url;
}

function sqliteFile(ctx: BackfillContext, name: string, repetition: number): string {
  return join(ctx.workDir, `${name}-${repetition}.sqlite`);
}

function sqliteLoop(id: string, label: string, loop: LoopName): BackfillRow {
  return {
    id,
    label,
    database: 'sqlite',
    async measure(ctx, repetition) {
      const path = sqliteFile(ctx, id, repetition);
      const store = await migrated(`sqlite:${path}`);
      try {
        return await sampled(ctx.sim, () => loopChild(ctx, loop, store));
      } finally {
        removeSqlite(path);
      }
    },
  };
}

function fetchOnly(id: string, label: string, loop: 'fetch' | 'bytes'): BackfillRow {
  return { id, label, database: 'none', measure: (ctx) => sampled(ctx.sim, () => loopChild(ctx, loop)) };
}

/** The SQLite files the product backfills, kept for the incremental cycles (the caller removes them). */
export const productFiles: string[] = [];

const sqliteProduct: BackfillRow = {
  id: 'product-sqlite',
  label: 'tms-sync sync invoices (SQLite)',
  database: 'sqlite',
  async measure(ctx, repetition) {
    const path = sqliteFile(ctx, 'product', repetition);
    productFiles.push(path);
    return sampled(ctx.sim, () => runProduct({ simUrl: ctx.sim.url, storeUrl: `sqlite:${path}` }));
  },
};

const postgresRaw: BackfillRow = {
  id: 'raw-postgres',
  label: 'raw limit (PostgreSQL, one statement a page)',
  database: 'postgres',
  async measure(ctx) {
    const url = await migrated(await ctx.pg!.fresh());
    try {
      return await sampled(ctx.sim, () => loopChild(ctx, 'raw', url));
    } finally {
      await ctx.pg!.drop(url);
    }
  },
};

const postgresProduct: BackfillRow = {
  id: 'product-postgres',
  label: 'tms-sync sync invoices (PostgreSQL)',
  database: 'postgres',
  async measure(ctx) {
    const url = await ctx.pg!.fresh();
    try {
      return await sampled(ctx.sim, () => runProduct({ simUrl: ctx.sim.url, storeUrl: url }));
    } finally {
      await ctx.pg!.drop(url);
    }
  },
};

/** Every backfill row, in table order; the benchmark rotates the order between repetitions. */
export const backfillRows: readonly BackfillRow[] = [
  fetchOnly('sim-bytes', 'simulator serving (fetch, no parse)', 'bytes'),
  fetchOnly('fetch-parse', 'fetch + JSON.parse, no writes', 'fetch'),
  sqliteLoop('raw-sqlite', 'raw limit (SQLite, tx per page)', 'raw'),
  sqliteLoop('naive-sqlite', 'naive script (autocommit per row)', 'naive'),
  sqliteProduct,
  postgresRaw,
  postgresProduct,
];
