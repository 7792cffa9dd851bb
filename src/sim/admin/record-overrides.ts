import { Type } from '@sinclair/typebox';
import type { IdFormat } from '../data/id-format.js';
import type { SimData } from '../data/sim-data.js';
import { createBodyChecker, validationFailed } from '../services/body-checker.js';
import { SimHttpError } from '../sim-http-error.js';
import type { RecordTable } from '../tables/record-table.js';

/** The streams whose records `PUT /_sim/overrides` can make malformed. */
export const overridableStreams = ['invoices', 'clients'] as const;
export type OverridableStream = (typeof overridableStreams)[number];

/** A record served with raw fields, and the sequence it took when they were set or cleared. */
export interface SimOverride {
  stream: OverridableStream;
  id: string;
  sequence: number;
}

const OverrideRequest = Type.Object({
  stream: Type.String(),
  id: Type.String({ minLength: 1 }),
  fields: Type.Record(Type.String(), Type.Unknown()),
});

const checkOverride = createBodyChecker(OverrideRequest);

// Lines are a stream of their own (invoice_lines), served in the detail only: raw lines there would
// contradict the truth of invoice_lines.
const childFields: Record<OverridableStream, readonly string[]> = { invoices: ['lines'], clients: [] };

interface OverridableStore {
  readonly table: Pick<RecordTable<unknown>, 'setRawFields' | 'clearRawFields'>;
  readonly ids: IdFormat;
  find(id: string): number;
  touch(index: number): number;
}

/** `PUT /_sim/overrides`: serves the record with these raw fields from now on, under a new sequence. */
export function setOverride(data: SimData, body: unknown): SimOverride {
  const { stream, id, fields } = checkOverride(body);
  if (!isOverridable(stream)) {
    throw new SimHttpError(400, 'unknown_stream', `overrides apply to ${overridableStreams.join(', ')}`);
  }
  const forbidden = childFields[stream].filter((field) => field in fields);
  if (forbidden.length > 0) {
    throw validationFailed(
      forbidden.map((field) => ({ field: `fields.${field}`, message: 'a child stream, not overridable' })),
    );
  }
  const store: OverridableStore = data[stream];
  const index = store.find(id);
  store.table.setRawFields(index, fields);
  return { stream, id, sequence: store.touch(index) };
}

/** `DELETE /_sim/overrides`: serves every overridden record as it is again, under a new sequence. */
export function clearOverrides(data: SimData): SimOverride[] {
  return overridableStreams.flatMap((stream) => {
    const store: OverridableStore = data[stream];
    return store.table
      .clearRawFields()
      .map((index) => ({ stream, id: store.ids.format(index), sequence: store.touch(index) }));
  });
}

function isOverridable(stream: string): stream is OverridableStream {
  return (overridableStreams as readonly string[]).includes(stream);
}
