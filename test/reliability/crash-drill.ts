/**
 * `npm run crash-drill`: SIGKILLs the worker at random moments during a backfill and during
 * incremental runs (runCrashDrill), then prints the kills, the pages fetched again per kill and
 * the differences from the truth. DRILL_INVOICES and DRILL_CLIENTS (default 200000 each),
 * DRILL_KILLS (20, during the backfill), DRILL_INCREMENTAL_KILLS (10), DRILL_STORE_URL (default a
 * fresh SQLite file; a PostgreSQL URL drills that database), DRILL_SEED. Exit code 1 when the store
 * differs from the truth or fewer kills landed than asked.
 */
import { runCrashDrill } from './crash/crash-drill.js';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const invoices = number('DRILL_INVOICES', 200_000);
const options = {
  invoices,
  clients: number('DRILL_CLIENTS', 200_000),
  backfillKills: number('DRILL_KILLS', 20),
  incrementalKills: number('DRILL_INCREMENTAL_KILLS', 10),
  changesPerRound: Math.max(100, Math.round(invoices * 0.05)),
  killDelayMs: { backfill: [100, 600], incremental: [0, 150] } as const,
  pageLimit: 1000,
  latencyMs: 0,
  ...(process.env.DRILL_STORE_URL ? { storeUrl: process.env.DRILL_STORE_URL } : {}),
  seed: number('DRILL_SEED', 1),
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  log: (line: string) => console.log(line),
};
const report = await runCrashDrill(options);
console.log('\nphase        kills  pages fetched  uninterrupted  fetched again  per kill  seconds');
for (const phase of report.phases) {
  const again = phase.pagesFetched - phase.pagesUninterrupted;
  const perKill = phase.kills === 0 ? '-' : (again / phase.kills).toFixed(2);
  console.log(
    `${phase.phase.padEnd(12)} ${String(phase.kills).padStart(5)}  ${String(phase.pagesFetched).padStart(13)}  ${String(phase.pagesUninterrupted).padStart(13)}  ${String(again).padStart(13)}  ${perKill.padStart(8)}  ${String(phase.seconds).padStart(7)}`,
  );
}
let failed = false;
for (const { stream, rows, differences } of report.streams) {
  console.log(`${stream}: ${rows} live rows, ${differences.length} differences from the truth`);
  for (const line of differences.slice(0, 10)) console.log(`  ${line}`);
  if (differences.length > 0) failed = true;
}
const [backfill, incremental] = report.phases;
if ((backfill?.kills ?? 0) < options.backfillKills || (incremental?.kills ?? 0) < options.incrementalKills) {
  console.log('fewer kills landed than asked: the runs ended first (lower DRILL_* sizes make that likelier)');
  failed = true;
}
process.exitCode = failed ? 1 : 0;
