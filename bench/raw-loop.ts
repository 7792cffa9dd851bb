import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { invoiceColumns, invoicePgTypes, invoiceRow } from './invoice-row.js';
import { type PageWriter, upsertTail } from './page-writer.js';

const columnList = invoiceColumns.map((name) => `"${name}"`).join(', ');

/**
 * The SQLite raw limit (BENCHMARKS.md's fastest path): one prepared upsert, run per row, one
 * transaction per page, WAL with synchronous=NORMAL as the store opens it. No guards, no counts.
 */
export function sqliteRawWriter(path: string): PageWriter {
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const upsert = db.prepare(
    `INSERT INTO invoices (${columnList}) VALUES (${invoiceColumns.map(() => '?').join(', ')}) ${upsertTail(invoiceColumns)}`,
  );
  const writePage = db.transaction((items: readonly Record<string, unknown>[], deleted: boolean) => {
    const now = new Date().toISOString();
    for (const record of items) upsert.run(invoiceRow(record, now, deleted));
  });
  return { write: (page) => writePage(page.items, page.deleted), close: () => void db.close() };
}

/**
 * The PostgreSQL raw limit: the whole page as one multi-row statement, a JSONB parameter expanded
 * by `jsonb_to_recordset` (BENCHMARKS.md: faster than multi-row VALUES; COPY would need
 * pg-copy-streams, which the project does not depend on). No guards, no counts.
 */
export async function postgresRawWriter(url: string): Promise<PageWriter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const typed = invoiceColumns.slice(6);
  const recordType = [
    '"id" text',
    '"data" jsonb',
    '"sequence" bigint',
    ...typed.map((name, i) => `"${name}" ${invoicePgTypes[i]}`),
  ].join(', ');
  const selected = ['"id"', '"data"', '"sequence"', '$2::timestamptz', '$3::timestamptz', '$4::text'];
  const text =
    `INSERT INTO invoices (${columnList}) SELECT ${[...selected, ...typed.map((name) => `"${name}"`)].join(', ')} ` +
    `FROM jsonb_to_recordset($1::jsonb) AS r(${recordType}) ${upsertTail(invoiceColumns)}`;
  return {
    async write(page) {
      const now = new Date().toISOString();
      const input = page.items.map((record) => {
        const row = invoiceRow(record, now, page.deleted);
        const item: Record<string, unknown> = { id: row[0], data: record, sequence: row[2] };
        for (let i = 0; i < typed.length; i++) item[typed[i]!] = row[6 + i];
        return item;
      });
      const deletedAt = page.deleted ? now : null;
      await client.query(text, [JSON.stringify(input), now, deletedAt, page.deleted ? 'upstream' : null]);
    },
    close: () => client.end(),
  };
}
