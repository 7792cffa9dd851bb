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
}

export const defaultTmsSettings: TmsSettings = Object.freeze({
  maxConcurrency: 16,
  maxRequestsPerSecond: 0,
  patienceSeconds: 60,
  requestCeilingSeconds: 120,
});

const integers = {
  TMS_MAX_CONCURRENCY: ['maxConcurrency', 1, 256],
  TMS_MAX_RPS: ['maxRequestsPerSecond', 0, 100_000],
  TMS_PATIENCE_SECONDS: ['patienceSeconds', 1, 86_400],
  TMS_REQUEST_CEILING_SECONDS: ['requestCeilingSeconds', 1, 86_400],
} as const satisfies IntegerSettingTable<TmsSettings>;

export const tmsFromEnvironment = (env: NodeJS.ProcessEnv): Partial<TmsSettings> =>
  integersFromEnvironment<TmsSettings>(env, integers);

export const checkTmsSettings = (settings: TmsSettings): void => checkIntegers(settings, integers);
