import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

/**
 * The typed columns a hand-rolled loop written for tms-sim's invoices would fill: the fields it
 * sends, named and typed as the product infers them (so both write the same row), plus docs/api.md's
 * `modified_at`. [column, record path, SQLite type, PostgreSQL type].
 */
const typed: ReadonlyArray<readonly [string, string, string, string]> = [
  ['modified_at', 'modifiedAt', 'text', 'timestamptz'],
  ['client_id', 'clientId', 'text', 'text'],
  ['currency', 'currency', 'text', 'text'],
  ['due_date', 'dueDate', 'text', 'date'],
  ['issue_date', 'issueDate', 'text', 'date'],
  ['notes', 'notes', 'text', 'text'],
  ['number', 'number', 'text', 'text'],
  ['paid_amount', 'paidAmount', 'numeric', 'numeric'],
  ['reference', 'reference', 'text', 'text'],
  ['status', 'status', 'text', 'text'],
  ['totals__gross', 'totals.gross', 'numeric', 'numeric'],
  ['totals__net', 'totals.net', 'numeric', 'numeric'],
  ['totals__vat', 'totals.vat', 'numeric', 'numeric'],
];

/** The invoices table's written columns, in the order `invoiceRow` gives the values. */
export const invoiceColumns: readonly string[] = [
  'id',
  'data',
  'sequence',
  'synced_at',
  'deleted_at',
  'deleted_reason',
  ...typed.map(([name]) => name),
];

/** PostgreSQL type of each typed column, for a `jsonb_to_recordset` record definition. */
export const invoicePgTypes: readonly string[] = typed.map(([, , , type]) => type);

const getters = typed.map(([, path]) => {
  const keys = path.split('.');
  return (record: Record<string, unknown>): unknown => {
    let value: unknown = record;
    for (const key of keys) value = (value as Record<string, unknown> | null | undefined)?.[key];
    return value ?? null;
  };
});

/**
 * One invoice as the raw loops bind it: the record as JSON text, its sequence and the typed
 * columns read by their paths, with none of the store's checks or normalisation.
 */
export function invoiceRow(record: Record<string, unknown>, syncedAt: string, deleted: boolean): unknown[] {
  return [
    record.id,
    JSON.stringify(record),
    record.sequence,
    syncedAt,
    deleted ? syncedAt : null,
    deleted ? 'upstream' : null,
    ...getters.map((get) => get(record)),
  ];
}

/** Adds the raw loops' typed columns to a migrated store's invoices table (the product infers its own). */
export async function addInvoiceColumns(url: string): Promise<void> {
  if (url.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const [name, , , type] of typed)
        await client.query(`ALTER TABLE invoices ADD COLUMN IF NOT EXISTS "${name}" ${type}`);
    } finally {
      await client.end();
    }
    return;
  }
  const db = new BetterSqlite3(url.replace(/^sqlite:/, ''));
  try {
    const existing = new Set(
      db
        .prepare('select name from pragma_table_info(?)')
        .all('invoices')
        .map((row) => (row as { name: string }).name),
    );
    for (const [name, , type] of typed)
      if (!existing.has(name)) db.exec(`ALTER TABLE invoices ADD COLUMN "${name}" ${type}`);
  } finally {
    db.close();
  }
}
