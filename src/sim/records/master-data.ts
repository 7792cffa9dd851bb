import { type Static, Type } from '@sinclair/typebox';
import { Int32 } from './record-parts.js';

/** Trailer, docs/api.md, Records. */
export const Trailer = Type.Object({ id: Type.String(), licensePlate: Type.String() });
export type Trailer = Static<typeof Trailer>;

/** Trace type, docs/api.md, Records. */
export const TraceType = Type.Object({
  id: Type.String(),
  name: Type.String(),
  percentage: Int32,
  color: Int32,
});
export type TraceType = Static<typeof TraceType>;

/** Vehicle. Fields chosen here. */
export const Vehicle = Type.Object({
  id: Type.String(),
  licensePlate: Type.String(),
  name: Type.String(),
  fuelType: Type.String(),
});
export type Vehicle = Static<typeof Vehicle>;

/** Packaging or carrier. Fields chosen here. */
export const Packaging = Type.Object({
  id: Type.String(),
  name: Type.String(),
  code: Type.String(),
  isCarrier: Type.Boolean(),
});
export type Packaging = Static<typeof Packaging>;

/** Completion status of a task; int32 id because tasks reference `completionStatusId` as one. */
export const CompletionStatus = Type.Object({
  id: Int32,
  name: Type.String(),
  code: Type.String(),
  isSuccess: Type.Boolean(),
});
export type CompletionStatus = Static<typeof CompletionStatus>;

/** Activity (only MobileEnabled ones are listed). Int32 id as in the task type's `activityId`. */
export const Activity = Type.Object({
  id: Int32,
  name: Type.String(),
  code: Type.String(),
  mobileEnabled: Type.Boolean(),
});
export type Activity = Static<typeof Activity>;

/** A phone number important for drivers. Fields chosen here. */
export const DriverContact = Type.Object({
  id: Type.String(),
  name: Type.String(),
  phone: Type.String(),
  role: Type.String(),
});
export type DriverContact = Static<typeof DriverContact>;

/** TMS version, GET /driver-api/settings/version. Fields chosen here. */
export const TmsVersion = Type.Object({ version: Type.String(), apiVersion: Type.String() });
export type TmsVersion = Static<typeof TmsVersion>;

/** Logo, GET /driver-api/logo/{id} (JSON). Fields chosen here. */
export const Logo = Type.Object({
  id: Int32,
  mediaType: Type.String(),
  dataBase64: Type.String(),
});
export type Logo = Static<typeof Logo>;
