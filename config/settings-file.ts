import { type Static, Type } from '@sinclair/typebox';

const Schedule = Type.Object(
  {
    everySeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    cron: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/** The JSON config file named by TMS_SYNC_CONFIG: the same settings as the environment, plus schedules. */
export const SettingsFile = Type.Object(
  {
    baseUrl: Type.Optional(Type.String()),
    apiToken: Type.Optional(Type.String()),
    loginPath: Type.Optional(Type.String()),
    driverToken: Type.Optional(Type.String()),
    operators: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    storeUrl: Type.Optional(Type.String()),
    redisUrl: Type.Optional(Type.String()),
    opsHost: Type.Optional(Type.String()),
    opsPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    logLevel: Type.Optional(Type.String()),
    sequenceField: Type.Optional(Type.String({ minLength: 1 })),
    sync: Type.Optional(
      Type.Object(
        {
          pageLimit: Type.Optional(Type.Integer({ minimum: 1 })),
          maxDeleteShare: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
          guardMinRows: Type.Optional(Type.Integer({ minimum: 1 })),
          guardMinScopes: Type.Optional(Type.Integer({ minimum: 1 })),
          windowOverlapSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
          windowLookbackDays: Type.Optional(Type.Integer({ minimum: 1 })),
          partitionConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
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
        },
        { additionalProperties: false },
      ),
    ),
    schedule: Type.Optional(Schedule),
    streamSchedules: Type.Optional(Type.Record(Type.String(), Schedule)),
    worker: Type.Optional(
      Type.Object(
        {
          queueName: Type.Optional(Type.String({ minLength: 1 })),
          queuePrefix: Type.Optional(Type.String({ minLength: 1 })),
          concurrency: Type.Optional(Type.Integer({ minimum: 1 })),
          attempts: Type.Optional(Type.Integer({ minimum: 1 })),
          backoffMs: Type.Optional(Type.Integer({ minimum: 0 })),
          lockMs: Type.Optional(Type.Integer({ minimum: 1000 })),
          rateLimitPauseMs: Type.Optional(Type.Integer({ minimum: 1 })),
          shutdownTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000 })),
          dashboardToken: Type.Optional(Type.String({ minLength: 1 })),
          webhookSecret: Type.Optional(Type.String({ minLength: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type SettingsFile = Static<typeof SettingsFile>;
