import { type Static, Type } from '@sinclair/typebox';
import { Int32, Nullable, TimeSpan } from './record-parts.js';

/** Ride record. Fields chosen here (docs/api.md, Records: not shown); `id` is int32 because tasks reference `rideId` as one. */
export const Ride = Type.Object({
  id: Int32,
  number: Type.String(),
  status: Type.Union([Type.Literal('planned'), Type.Literal('started'), Type.Literal('ended')]),
  vehicleId: Nullable(Type.String()),
  trailerId: Nullable(Int32),
  planned: TimeSpan,
  actual: TimeSpan,
  taskIds: Type.Array(Type.String()),
});
export type Ride = Static<typeof Ride>;
