import { tmsVariables } from './tms-settings.js';
import { workerVariables } from './worker-settings.js';

/** The environment variables of the top-level settings, by the key they set (load-settings.ts reads them). */
export const topLevelVariables = {
  TMS_BASE_URL: 'baseUrl',
  TMS_API_TOKEN: 'apiToken',
  TMS_LOGIN_PATH: 'loginPath',
  TMS_DRIVER_TOKEN: 'driverToken',
  TMS_OPERATORS: 'operators',
  TMS_SEQUENCE_FIELD: 'sequenceField',
  STORE_URL: 'storeUrl',
  STORE_SCHEMA: 'storeSchema',
  REDIS_URL: 'redisUrl',
  OPS_HOST: 'opsHost',
  OPS_PORT: 'opsPort',
  LOG_LEVEL: 'logLevel',
} as const;

/** Each environment variable with the file key that sets the same (dotted below a group). */
export const fileKeyOfVariable: Readonly<Record<string, string>> = {
  ...topLevelVariables,
  ...Object.fromEntries(Object.entries(workerVariables).map(([name, key]) => [name, `worker.${key}`])),
  ...Object.fromEntries(Object.entries(tmsVariables).map(([name, key]) => [name, `tms.${key}`])),
};
