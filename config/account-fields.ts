import { Type } from '@sinclair/typebox';
import { ListValue } from './list-setting.js';

const Schedule = Type.Object(
  {
    everySeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000 })),
    cron: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/**
 * The config file's keys that describe one TMS account and where it is mirrored: the top level of
 * the file (the default connection) and each entry of `connections` take them alike
 * (docs/connections.md).
 */
export const accountFields = {
  baseUrl: Type.Optional(Type.String()),
  apiToken: Type.Optional(Type.String()),
  loginPath: Type.Optional(Type.String()),
  driverToken: Type.Optional(Type.String()),
  operators: Type.Optional(ListValue),
  storeUrl: Type.Optional(Type.String()),
  storeSchema: Type.Optional(Type.String()),
  sequenceField: Type.Optional(Type.String({ minLength: 1 })),
  sync: Type.Optional(
    Type.Object(
      {
        // docs/api.md's listings clamp `limit` to 1000; room is left for a TMS that allows more.
        pageLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
        maxDeleteShare: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        guardMinRows: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
        guardMinScopes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
        windowOverlapSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_592_000 })),
        windowLookbackDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
        partitionConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
        maxRunPages: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
        maxRunSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_000_000 })),
        keepRunsDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 36_500 })),
      },
      { additionalProperties: false },
    ),
  ),
  tms: Type.Optional(
    Type.Object(
      {
        maxConcurrency: Type.Optional(Type.Integer()),
        maxRequestsPerSecond: Type.Optional(Type.Integer()),
        patienceSeconds: Type.Optional(Type.Integer()),
        requestCeilingSeconds: Type.Optional(Type.Integer()),
        requestTimeoutSeconds: Type.Optional(Type.Integer()),
      },
      { additionalProperties: false },
    ),
  ),
  streams: Type.Optional(
    Type.Object(
      {
        include: Type.Optional(ListValue),
        exclude: Type.Optional(ListValue),
        // History mode (docs/history.md): true for every stream, or the streams named.
        history: Type.Optional(Type.Union([Type.Boolean(), ListValue])),
      },
      // Or per stream: `"invoices": { "history": true }`.
      { additionalProperties: Type.Object({ history: Type.Boolean() }, { additionalProperties: false }) },
    ),
  ),
  schedule: Type.Optional(Schedule),
  streamSchedules: Type.Optional(Type.Record(Type.String(), Schedule)),
  reconcileSchedule: Type.Optional(Type.Union([Schedule, Type.Literal(false)])),
  streamReconcileSchedules: Type.Optional(
    Type.Record(Type.String(), Type.Union([Schedule, Type.Literal(false)])),
  ),
};
