// A benchmark loop in its own process, so its peak RSS compares with the product's:
//   node --import tsx bench/loop-child.ts --loop raw|naive|fetch|bytes --url SIM_URL [--store URL]
// Prints one JSON line: {records, pages, requests, seconds}.
import { parseArgs } from 'node:util';
import { sqliteNaiveWriter } from './naive-loop.js';
import { createPageSource } from './page-source.js';
import { noWriter, type PageWriter } from './page-writer.js';
import { postgresRawWriter, sqliteRawWriter } from './raw-loop.js';

/** The loops a child can run: `fetch` parses and drops, `bytes` does not even parse. */
export const loopNames = ['raw', 'naive', 'fetch', 'bytes'] as const;
export type LoopName = (typeof loopNames)[number];

/** What a loop child prints. */
export interface LoopResult {
  readonly records: number;
  readonly pages: number;
  readonly requests: number;
  readonly seconds: number;
}

async function openWriter(loop: LoopName, store: string | undefined): Promise<PageWriter> {
  if (loop === 'fetch' || loop === 'bytes') return noWriter;
  if (!store) throw new Error(`--store is required for the ${loop} loop`);
  if (store.startsWith('postgres')) {
    if (loop !== 'raw') throw new Error('only the raw loop writes to PostgreSQL');
    return postgresRawWriter(store);
  }
  const path = store.replace(/^sqlite:/, '');
  return loop === 'raw' ? sqliteRawWriter(path) : sqliteNaiveWriter(path);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { loop: { type: 'string' }, url: { type: 'string' }, store: { type: 'string' } },
  });
  const loop = values.loop as LoopName;
  if (!loopNames.includes(loop) || !values.url)
    throw new Error('usage: --loop raw|naive|fetch|bytes --url URL');
  const writer = await openWriter(loop, values.store);
  const source = createPageSource(values.url, { parse: loop !== 'bytes' });
  const started = performance.now();
  let records = 0;
  let pages = 0;
  for await (const page of source.pages()) {
    await writer.write(page);
    records += page.count;
    pages++;
  }
  const seconds = (performance.now() - started) / 1000;
  await writer.close();
  await source.close();
  const result: LoopResult = { records, pages, requests: source.requests(), seconds };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
