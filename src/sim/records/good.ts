import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Int32, Location, Nullable } from './record-parts.js';

/** A scan of a good. Fields chosen here. */
export const ScanTrace = Type.Object({
  traceTypeId: Type.String(),
  scannedAt: DateTime,
  barcode: Type.String(),
  location: Nullable(Location),
});

/** Good record. Fields chosen here (docs/api.md, Records: not shown). */
export const Good = Type.Object({
  id: Type.String(),
  taskId: Type.String(),
  description: Type.String(),
  barcode: Type.String(),
  amount: Int32,
  packagingId: Nullable(Type.String()),
  weightKg: Type.Number(),
  kind: Type.Union([Type.Literal('planned'), Type.Literal('return'), Type.Literal('extra')]),
  traces: Type.Array(ScanTrace),
});
export type Good = Static<typeof Good>;
