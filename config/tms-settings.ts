import { checkIntegers, type IntegerSettingTable, integersFromEnvironment } from './integer-settings.js';

/**
 * How hard tms-sync may press the TMS, and how long it waits for it (docs/retries.md); env var
 * names in brackets.
 */
export interface TmsSettings {
  /** Requests in flight to the TMS, the adaptive limit's ceiling [TMS_MAX_CONCURRENCY]. @default 16 */
  readonly maxConcurrency: number;
  /** The TMS's allowance in requests per second, shared by every worker through Redis; 0 = none known [TMS_MAX_RPS]. @default 0 */
  readonly maxRequestsPerSecond: number;
  /** How long the TMS may fail every request before runs against it stop with one error [TMS_PATIENCE_SECONDS]. @default 60 */
  readonly patienceSeconds: number;
  /** The longest one request is retried while the TMS answers others [TMS_REQUEST_CEILING_SECONDS]. @default 120 */
  readonly requestCeilingSeconds: number;
  /**
   * The deadline of one send, from sending to the last byte of the answer, however slowly the TMS
   * drips it [TMS_REQUEST_TIMEOUT_SECONDS]. A send past it fails and is retried within the ceiling.
   * @default 60
   */
  readonly requestTimeoutSeconds: number;
}

export const defaultTmsSettings: TmsSettings = Object.freeze({
  maxConcurrency: 16,
  maxRequestsPerSecond: 0,
  patienceSeconds: 60,
  requestCeilingSeconds: 120,
  requestTimeoutSeconds: 60,
});

const integers = {
  TMS_MAX_CONCURRENCY: ['maxConcurrency', 1, 256],
  TMS_MAX_RPS: ['maxRequestsPerSecond', 0, 100_000],
  TMS_PATIENCE_SECONDS: ['patienceSeconds', 1, 86_400],
  TMS_REQUEST_CEILING_SECONDS: ['requestCeilingSeconds', 1, 86_400],
  TMS_REQUEST_TIMEOUT_SECONDS: ['requestTimeoutSeconds', 1, 86_400],
} as const satisfies IntegerSettingTable<TmsSettings>;

/** Every environment variable of the group, by the key it sets (the config file's hints). */
export const tmsVariables: Readonly<Record<string, keyof TmsSettings>> = Object.fromEntries(
  Object.entries(integers).map(([name, [key]]) => [name, key]),
);

export const tmsFromEnvironment = (env: NodeJS.ProcessEnv): Partial<TmsSettings> =>
  integersFromEnvironment<TmsSettings>(env, integers);

export const checkTmsSettings = (settings: TmsSettings): void => checkIntegers(settings, integers);
