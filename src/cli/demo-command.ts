import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Command } from 'commander';
import { defaultSettings, type Settings } from '../../config/settings.js';
import { createLogger } from '../logger.js';
import { createSimAdminClient } from '../sim/sim-admin-client.js';
import { startSim } from '../sim/start-sim.js';
import { createSyncEngine } from '../sync/sync-engine.js';
import { exitCodes, runCommand } from './cli-failure.js';
import { formatSummary } from './summary-table.js';
import { allSucceeded, runShowingProgress } from './sync-command.js';

const demoFile = './data/demo.sqlite';

/**
 * Queries a BI user might start with, run against the demo store and printed with their answers,
 * written as README.md's examples are (test/cli/readme-sql.test.ts checks those): money summed in
 * cents (`<column>_cents`, exact on SQLite too), and a join never drops the rows whose other side is
 * gone (a LEFT JOIN to the base table). Besides the spec's columns they use columns inferred from
 * the simulator's records (`status`, `currency`, `totals__gross`, `paid_amount`): `tms-sync
 * schema` lists them. Amounts are summed per currency, never across.
 */
const exampleQueries = [
  `SELECT status, currency, COUNT(*) AS invoices, SUM(totals__gross_cents) / 100.0 AS gross
   FROM invoices_live GROUP BY status, currency ORDER BY invoices DESC LIMIT 6`,
  `SELECT currency, COUNT(*) AS open_invoices, SUM(totals__gross_cents - paid_amount_cents) / 100.0 AS open_amount
   FROM invoices_live WHERE status = 'finalized' AND paid_amount_cents < totals__gross_cents
   GROUP BY currency ORDER BY open_amount DESC`,
  `SELECT i.client_id, c.name AS client, c.deleted_at IS NOT NULL AS client_deleted, i.currency,
          COUNT(*) AS open_invoices, SUM(i.totals__gross_cents - i.paid_amount_cents) / 100.0 AS open_amount
   FROM invoices_live i LEFT JOIN clients c ON c.id = i.client_id
   WHERE i.status = 'finalized' AND i.paid_amount_cents < i.totals__gross_cents
   GROUP BY i.client_id, c.name, c.deleted_at, i.currency ORDER BY open_amount DESC LIMIT 5`,
  `SELECT i.currency, COUNT(*) AS payments, SUM(p.amount_cents) / 100.0 AS received
   FROM invoice_payments_live p LEFT JOIN invoices i ON i.id = p.invoice_id
   WHERE p.date >= date('now', '-1 month') GROUP BY i.currency ORDER BY received DESC`,
  `SELECT operator_id, status, COUNT(*) AS tasks FROM tasks_live
   GROUP BY operator_id, status ORDER BY operator_id, tasks DESC`,
  `SELECT t.address_city AS city, COUNT(*) AS tasks, COUNT(tr.id) AS with_trailer,
          SUM(t.cash_on_delivery_cents) / 100.0 AS cash_on_delivery
   FROM tasks_live t LEFT JOIN trailers_live tr ON tr.id = t.trailer_id
   GROUP BY t.address_city ORDER BY tasks DESC LIMIT 5`,
];

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      `Start the simulator in-process, sync every stream into ${demoFile}, print a summary and example SQL.`,
    )
    .action(() => runCommand('demo', demo));
}

async function demo(): Promise<number> {
  const sim = await startSim({ invoices: 2000, clients: 300, operators: 2, seed: 42 });
  try {
    const operators = Object.keys(
      (await createSimAdminClient({ url: sim.url }).truth('settings')).settings ?? {},
    );
    rmSync(demoFile, { force: true });
    rmSync(`${demoFile}-wal`, { force: true });
    rmSync(`${demoFile}-shm`, { force: true });
    const settings: Settings = {
      ...defaultSettings,
      baseUrl: sim.url,
      apiToken: sim.options.apiToken,
      operators,
      storeUrl: `sqlite:${demoFile}`,
    };
    process.stdout.write(`tms-sim running at ${sim.url}; syncing every stream into ${demoFile}\n\n`);
    const engine = await createSyncEngine({ settings, logger: createLogger({ level: 'warn' }) });
    const summaries = await runShowingProgress(engine, []).finally(() => engine.close());
    process.stdout.write(formatSummary(summaries));
    process.stdout.write(
      `\nThe store is a plain SQLite file: sqlite3 ${demoFile}\n\n${runExamples(demoFile)}`,
    );
    return allSucceeded(summaries) ? exitCodes.ok : exitCodes.failed;
  } finally {
    await sim.close();
  }
}

function runExamples(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return exampleQueries
      .map((query) => {
        const sqlText = query.replace(/\s+/g, ' ');
        const rows = db.prepare(query).all() as Record<string, unknown>[];
        return `${sqlText};\n${formatRows(rows)}\n`;
      })
      .join('\n');
  } finally {
    db.close();
  }
}

function formatRows(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '  (no rows)';
  const header = Object.keys(rows[0]!);
  const cells = rows.map((row) => header.map((name) => String(row[name] ?? '')));
  const widths = header.map((name, i) => Math.max(name.length, ...cells.map((row) => row[i]!.length)));
  return [header, ...cells]
    .map((row) => `  ${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`)
    .join('\n');
}
