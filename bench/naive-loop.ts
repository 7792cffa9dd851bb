import BetterSqlite3 from 'better-sqlite3';
import { invoiceColumns, invoiceRow } from './invoice-row.js';
import { type PageWriter, upsertTail } from './page-writer.js';

/**
 * What a hand-rolled integration does: one autocommit upsert per row, no transaction around the
 * page. Charitable in every other way (prepared once, the store's WAL and synchronous=NORMAL), so
 * the gap to the raw limit is the transaction boundary alone; with SQLite's default rollback
 * journal it would be 28-60x slower (BENCHMARKS.md).
 */
export function sqliteNaiveWriter(path: string): PageWriter {
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const upsert = db.prepare(
    `INSERT INTO invoices (${invoiceColumns.map((name) => `"${name}"`).join(', ')}) VALUES (${invoiceColumns.map(() => '?').join(', ')}) ${upsertTail(invoiceColumns)}`,
  );
  return {
    write(page) {
      const now = new Date().toISOString();
      for (const record of page.items) upsert.run(invoiceRow(record, now, page.deleted));
    },
    close: () => void db.close(),
  };
}
