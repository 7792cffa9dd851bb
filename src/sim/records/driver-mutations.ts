import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Int32, Location, Nullable } from './record-parts.js';
import { TaskCompletion, TaskStatus } from './task.js';

// Request bodies of the Driver API writes. docs/api.md shows none of them (docs/api.md, Operations); every
// shape here is chosen here. Each may carry `mutationId`, the key that get-processed-mutations reports.
const MutationId = Type.Optional(Type.String({ minLength: 1, maxLength: 200 }));

/** PATCH /driver-api/tasks/{id}: merge-patch of status, completion and the editable references. */
export const TaskUpdate = Type.Object({
  mutationId: MutationId,
  status: Type.Optional(TaskStatus),
  completion: Type.Optional(Type.Partial(TaskCompletion)),
  referenceExternal: Type.Optional(Type.String()),
});
export type TaskUpdate = Static<typeof TaskUpdate>;

/** PATCH /driver-api/rides/{id}: start or end a ride. */
export const RideUpdate = Type.Object({
  mutationId: MutationId,
  action: Type.Union([Type.Literal('start'), Type.Literal('end')]),
  at: DateTime,
});
export type RideUpdate = Static<typeof RideUpdate>;

/** POST /driver-api/goods/: a return or extra good, decided by the scan-trace type. */
export const NewGood = Type.Object({
  mutationId: MutationId,
  taskId: Type.String(),
  description: Type.String(),
  barcode: Type.String(),
  amount: Int32,
  traceTypeId: Type.String(),
});
export type NewGood = Static<typeof NewGood>;

/** POST /driver-api/goods/{id}/scan-traces. */
export const NewScanTrace = Type.Object({
  mutationId: MutationId,
  traceTypeId: Type.String(),
  scannedAt: DateTime,
  barcode: Type.String(),
  location: Type.Optional(Nullable(Location)),
});
export type NewScanTrace = Static<typeof NewScanTrace>;

/** POST /driver-api/vehicles/{id}/refueling-stops. */
export const RefuelingStop = Type.Object({
  mutationId: MutationId,
  liters: Type.Number({ exclusiveMinimum: 0 }),
  odometerKm: Type.Number({ minimum: 0 }),
  at: DateTime,
  location: Type.Optional(Nullable(Location)),
});
export type RefuelingStop = Static<typeof RefuelingStop>;

/** POST /driver-api/activity-changes/; `operatorIdSecond` > 0 stores it for a second operator too. */
export const ActivityChange = Type.Object({
  mutationId: MutationId,
  activityId: Int32,
  at: DateTime,
  operatorIdSecond: Type.Optional(Int32),
});
export type ActivityChange = Static<typeof ActivityChange>;

/** POST /driver-api/tracking-positions/. */
export const TrackingPosition = Type.Object({
  mutationId: MutationId,
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  at: DateTime,
  speedKmh: Type.Optional(Type.Number({ minimum: 0 })),
});
export type TrackingPosition = Static<typeof TrackingPosition>;

/** POST /driver-api/chat/messages (send) and POST .../{id}/confirm (mark read). */
export const ChatMessageRequest = Type.Object({
  mutationId: MutationId,
  toId: Type.String(),
  text: Type.String({ maxLength: 4000 }),
});
export type ChatMessageRequest = Static<typeof ChatMessageRequest>;

/**
 * POST /driver-api/chat/messages/{id}/confirm. docs/api.md names the chat message as body; only the
 * mutation id and an optional read time are used, other fields are accepted and ignored.
 */
export const ChatConfirmRequest = Type.Object({
  mutationId: MutationId,
  readAt: Type.Optional(DateTime),
});
export type ChatConfirmRequest = Static<typeof ChatConfirmRequest>;

/** POST /driver-api/settings/push-registrations. */
export const PushRegistration = Type.Object({
  mutationId: MutationId,
  pushToken: Type.String({ minLength: 1 }),
  platform: Type.Union([Type.Literal('android'), Type.Literal('ios')]),
});
export type PushRegistration = Static<typeof PushRegistration>;

/**
 * PUT /driver-api/devices/{hardwareCode}: creates or updates the device. docs/api.md does not show the
 * "mobile device request", so any JSON object is taken and kept as sent; only a `mutationId`, when
 * one is sent, must be what every write's is.
 */
export const MobileDeviceRequest = Type.Object({ mutationId: MutationId }, { additionalProperties: true });
export type MobileDeviceRequest = Static<typeof MobileDeviceRequest>;

/** POST /driver-api/get-processed-mutations/ request. */
export const GetProcessedMutationIds = Type.Object({
  mutationIds: Type.Array(Type.String(), { maxItems: 1000 }),
});
export type GetProcessedMutationIds = Static<typeof GetProcessedMutationIds>;

/** One item of the mutation response: a mutation the TMS has processed. */
export const ProcessedMutation = Type.Object({
  mutationId: Type.String(),
  operation: Type.String(),
  processedAt: DateTime,
  result: Type.Union([Type.Literal('applied'), Type.Literal('rejected')]),
});
export type ProcessedMutation = Static<typeof ProcessedMutation>;
