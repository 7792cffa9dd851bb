// Page-write throughput of the store next to the raw limit of each database, in the same run
// (BENCHMARKS.md: compare ratios within one run, not absolute figures across runs).
// Run: npx tsx bench/store-upsert.ts [--pages 200] [--page-size 1000] [--only sqlite|postgres]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { streams } from '../config/streams.js';
import { openStore } from '../src/store/open-store.js';

const { values: args } = parseArgs({
  options: {
    pages: { type: 'string', default: '200' },
    'page-size': { type: 'string', default: '1000' },
    only: { type: 'string' },
  },
});
const pages = Number(args.pages);
const pageSize = Number(args['page-size']);
const pgUrl = process.env.TEST_PG_URL ?? `postgres://${userInfo().username}@127.0.0.1:5432/postgres`;
const columns = Object.entries(streams.invoices.columns);

/** ~1 KB invoices of ~15 fields with nested objects, keys in id order as a `since` listing sends them. */
function page(index: number, version: number): Array<Record<string, unknown>> {
  return Array.from({ length: pageSize }, (_, i) => {
    const n = index * pageSize + i;
    return {
      id: `inv-${String(n).padStart(8, '0')}`,
      number: `2024-${n}`,
      status: version === 0 ? 'preliminary' : 'finalized',
      clientId: `client-${n % 997}`,
      currency: 'EUR',
      issueDate: '2024-05-01',
      dueDate: '2024-05-31',
      reference: `ref ${n} v${version}`,
      notes: 'x'.repeat(680),
      totals: { net: n * 1.5, vat: n * 0.3, gross: n * 1.8 },
      paidAmount: version * 10,
      modifiedAt: new Date(Date.UTC(2024, 4, 1) + n * 1000 + version).toISOString(),
      lines: [
        { sku: 'A', qty: 1 },
        { sku: 'B', qty: 2 },
      ],
      sequence: version * 10_000_000 + n + 1,
    };
  });
}

const sequenceOf = (record: unknown) => (record as { sequence: number }).sequence;
const typedValues = (record: Record<string, unknown>) =>
  columns.map(
    ([, c]) =>
      c.path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], record) ??
      null,
  );

type Writer = (records: Array<Record<string, unknown>>) => Promise<void> | void;
type Rates = { new: number; updated: number };

/**
 * Rows per second of each writer, writing every page once as new rows, then once as updates.
 * The writers take turns page by page (each on its own database, in rotating order), so drift in
 * the machine's load hits them alike; the rate comes from the median page time, so a stall hits none.
 */
async function measure(writers: Writer[]): Promise<Rates[]> {
  const rates: Rates[] = writers.map(() => ({ new: 0, updated: 0 }));
  for (const version of [0, 1] as const) {
    const times: number[][] = writers.map(() => []);
    for (let index = 0; index < pages; index++) {
      const batch = page(index, version);
      // Rotated, so that no writer always follows the same one (a writer's flushes slow the next).
      for (let turn = 0; turn < writers.length; turn++) {
        const w = (index + turn) % writers.length;
        const start = performance.now();
        await writers[w]!(batch);
        times[w]!.push(performance.now() - start);
      }
    }
    for (const [w, ms] of times.entries())
      rates[w]![version === 0 ? 'new' : 'updated'] = Math.round(pageSize / (median(ms) / 1000));
  }
  return rates;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function storeWriter(
  url: string,
  checkpoint: boolean,
): Promise<{ write: Writer; close: () => Promise<void> }> {
  const store = await openStore(url);
  // One run, as the engine writes: each page committed (and waited for) through it.
  const run = await store.openRun({ stream: 'invoices', partition: '', trigger: 'cli' });
  const write: Writer = async (records) => {
    const cursor = records.at(-1)!.id as string;
    await run.commitPage({
      records: records.map((data) => ({ key: String(data.id), sequence: sequenceOf(data), data })),
      state: checkpoint
        ? { checkpoint: { cursor, cycleMaxSequence: 0, strategyState: null } }
        : { strategyState: null },
    });
    await run.flush();
  };
  const close = async () => {
    await run.finish({ result: 'succeeded', error: null });
    await store.close();
  };
  return { write, close };
}

function rawSqliteWriter(path: string): Writer {
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const names = ['id', 'data', 'sequence', 'synced_at', ...columns.map(([name]) => name)];
  const upsert = db.prepare(
    `INSERT INTO invoices (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ` +
      `ON CONFLICT (id) DO UPDATE SET ${names
        .slice(1)
        .map((n) => `"${n}" = excluded."${n}"`)
        .join(', ')}`,
  );
  const writePage = db.transaction((records: Array<Record<string, unknown>>) => {
    const now = new Date().toISOString();
    for (const r of records) upsert.run(r.id, JSON.stringify(r), r.sequence, now, ...typedValues(r));
  });
  return (records) => writePage(records);
}

async function rawPostgresWriter(url: string): Promise<{ write: Writer; close: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const typed = columns.map(
    ([name, c]) =>
      `"${name}" ${c.type === 'real' ? 'double precision' : c.type === 'timestamp' ? 'timestamptz' : c.type}`,
  );
  const names = columns.map(([name]) => `"${name}"`);
  const text =
    `INSERT INTO invoices (id, data, sequence, synced_at, ${names.join(', ')}) ` +
    `SELECT id, data, sequence, $2::timestamptz, ${names.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(id text, data jsonb, sequence bigint, ${typed.join(', ')}) ` +
    `ON CONFLICT (id) DO UPDATE SET data = excluded.data, sequence = excluded.sequence, synced_at = excluded.synced_at, ${names.map((n) => `${n} = excluded.${n}`).join(', ')}`;
  const write: Writer = async (records) => {
    const input = records.map((r) => {
      const values = typedValues(r);
      return {
        id: r.id,
        data: r,
        sequence: r.sequence,
        ...Object.fromEntries(columns.map(([name], i) => [name, values[i]])),
      };
    });
    await client.query(text, [JSON.stringify(input), new Date().toISOString()]);
  };
  return { write, close: () => client.end() };
}

async function sqliteRuns(): Promise<Rates[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tms-bench-'));
  try {
    const rawUrl = `sqlite:${join(dir, 'raw.sqlite')}`;
    await (await openStore(rawUrl)).close();
    const stores = [
      await storeWriter(`sqlite:${join(dir, 'a.sqlite')}`, false),
      await storeWriter(`sqlite:${join(dir, 'b.sqlite')}`, true),
    ];
    const rates = await measure([
      rawSqliteWriter(rawUrl.slice('sqlite:'.length)),
      ...stores.map((s) => s.write),
    ]);
    for (const store of stores) await store.close();
    return rates;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresRuns(): Promise<Rates[]> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  const created: string[] = [];
  const fresh = async () => {
    const name = `tms_bench_${randomUUID().replaceAll('-', '')}`;
    await admin.query(`create database ${name}`);
    created.push(name);
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  try {
    const rawUrl = await fresh();
    await (await openStore(rawUrl)).close();
    const writers = [
      await rawPostgresWriter(rawUrl),
      await storeWriter(await fresh(), false),
      await storeWriter(await fresh(), true),
    ];
    const rates = await measure(writers.map((w) => w.write));
    for (const writer of writers) await writer.close();
    return rates;
  } finally {
    for (const name of created) await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

const ratio = (a: number, b: number) => (a / b).toFixed(2);
console.log(
  `${pages} pages x ${pageSize} records of ~${JSON.stringify(page(0, 0)[0]).length} bytes; rows/s from the median page time`,
);
console.log('dialect    path                         new      updated   ratio new  ratio updated');
for (const [name, run] of [
  ['sqlite', sqliteRuns],
  ['postgres', postgresRuns],
] as const) {
  if (args.only && args.only !== name) continue;
  const [raw, ...store] = await run();
  for (const [path, r] of [
    ['raw limit', raw!],
    ['writePage', store[0]!],
    ['writePage + checkpoint', store[1]!],
  ] as const) {
    const figures = [r.new, r.updated].map((n) => String(n).padStart(7)).join('  ');
    console.log(
      `${name.padEnd(10)} ${path.padEnd(28)} ${figures}   ${ratio(r.new, raw!.new).padStart(9)}  ${ratio(r.updated, raw!.updated).padStart(13)}`,
    );
  }
}
