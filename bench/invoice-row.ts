import { streams } from '../config/streams.js';

const typed = Object.entries(streams.invoices.columns);

/** The invoices table's written columns, in the order `invoiceRow` gives the values (the product's own layout). */
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
export const invoicePgTypes: readonly string[] = typed.map(([, column]) =>
  column.type === 'real' ? 'double precision' : column.type === 'timestamp' ? 'timestamptz' : column.type,
);

const getters = typed.map(([, column]) => {
  const keys = column.path.split('.');
  return (record: Record<string, unknown>): unknown => {
    let value: unknown = record;
    for (const key of keys) value = (value as Record<string, unknown> | null | undefined)?.[key];
    return value ?? null;
  };
});

/**
 * One invoice as the raw loops bind it: the record as JSON text, its sequence and the typed
 * columns read by their catalogue paths, with none of the store's checks or normalisation.
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
