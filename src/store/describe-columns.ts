import type { ColumnType } from '../../config/stream-definition.js';
import type { ColumnOrigin } from './columns/typed-column.js';
import type { StoreContext } from './store-context.js';
import { toStoredDate } from './stored-values.js';

/** One typed column of a stream table as `tms-sync schema` shows it. */
export interface ColumnReport {
  readonly stream: string;
  readonly column: string;
  readonly type: ColumnType;
  /** The SQL type this store gives it. */
  readonly sqlType: string;
  /** The record field it holds, dotted (`address.city`). */
  readonly path: string;
  readonly origin: ColumnOrigin;
  readonly addedAt: Date;
  /** Values that did not fit the type (NULL in the column, whole in `data`), ever. */
  readonly drift: number;
  readonly driftSample: string | null;
  readonly driftAt: Date | null;
}

/** The typed columns of one stream table or of all, in table order. */
export async function describeColumns(context: StoreContext, stream?: string): Promise<ColumnReport[]> {
  if (stream !== undefined) context.table(stream);
  const rows = await context.dialect.db
    .selectFrom('stream_columns')
    .selectAll()
    .$if(stream !== undefined, (q) => q.where('stream', '=', stream!))
    .orderBy('stream')
    .orderBy('position')
    .execute();
  const typed = context.dialect.types.typed;
  return rows.map((row) => ({
    stream: row.stream,
    column: row.name,
    type: row.type as ColumnType,
    sqlType: String(typed[row.type as ColumnType]),
    path: (JSON.parse(row.path) as string[]).join('.'),
    origin: row.origin as ColumnOrigin,
    addedAt: toStoredDate(row.added_at)!,
    drift: Number(row.drift),
    driftSample: row.drift_sample,
    driftAt: toStoredDate(row.drift_at),
  }));
}
