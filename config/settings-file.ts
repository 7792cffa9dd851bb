import { type Static, Type } from '@sinclair/typebox';
import { accountFields } from './account-fields.js';
import { ConnectionFile } from './connection-file.js';

/**
 * The JSON config file named by TMS_SYNC_CONFIG: the same settings as the environment, plus
 * schedules and more connections. A list takes an array or a comma-separated string (list-setting.ts).
 */
export const SettingsFile = Type.Object(
  {
    ...accountFields,
    redisUrl: Type.Optional(Type.String()),
    opsHost: Type.Optional(Type.String()),
    opsPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    logLevel: Type.Optional(Type.String()),
    commands: Type.Optional(
      Type.Object(
        {
          concurrency: Type.Optional(Type.Integer()),
          maxAttempts: Type.Optional(Type.Integer()),
          leaseMs: Type.Optional(Type.Integer()),
          retryMs: Type.Optional(Type.Integer()),
          everyMs: Type.Optional(Type.Integer()),
        },
        { additionalProperties: false },
      ),
    ),
    worker: Type.Optional(
      Type.Object(
        {
          queueName: Type.Optional(Type.String({ minLength: 1 })),
          queuePrefix: Type.Optional(Type.String({ minLength: 1 })),
          concurrency: Type.Optional(Type.Integer({ minimum: 1 })),
          connectionConcurrency: Type.Optional(Type.Integer({ minimum: 1 })),
          connectionOwners: Type.Optional(Type.Integer({ minimum: 1 })),
          attempts: Type.Optional(Type.Integer({ minimum: 1 })),
          backoffMs: Type.Optional(Type.Integer({ minimum: 0 })),
          lockMs: Type.Optional(Type.Integer({ minimum: 1000 })),
          maxStalls: Type.Optional(Type.Integer({ minimum: 1 })),
          rateLimitPauseMs: Type.Optional(Type.Integer({ minimum: 1 })),
          shutdownTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000 })),
          connectionViews: Type.Optional(Type.String({ minLength: 1 })),
          dashboardToken: Type.Optional(Type.String({ minLength: 1 })),
          webhookSecret: Type.Optional(Type.String({ minLength: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    // More TMS accounts, by connection name (docs/connections.md); keys are names, not settings.
    connections: Type.Optional(Type.Record(Type.String(), ConnectionFile, { keysAreNames: true })),
  },
  { additionalProperties: false },
);
export type SettingsFile = Static<typeof SettingsFile>;
