import { type CommandSettings, defaultCommandSettings } from './command-settings.js';
import type { ConnectionFile } from './connection-file.js';
import { defaultTmsSettings, type TmsSettings } from './tms-settings.js';
import { defaultWorkerSettings, type WorkerSettings } from './worker-settings.js';

/** When the worker runs a stream: an interval in seconds or a cron pattern (one of the two). */
export interface ScheduleSetting {
  readonly everySeconds?: number;
  readonly cron?: string;
}

export interface SyncSettings {
  /** Page size asked of listings; listings clamp it to their own caps. @default 1000 */
  readonly pageLimit: number;
  /** A pass that would take more than this share of a judged scope's live rows holds its deletes back (docs/sync-engine.md). @default 0.5 */
  readonly maxDeleteShare: number;
  /** A scope is judged by the delete guard on its own from this many live rows. @default 100 */
  readonly guardMinRows: number;
  /** A batch of child scopes is judged when at least this many of its scopes would be emptied. @default 10 */
  readonly guardMinScopes: number;
  /** Chat windows are re-read this far back, for late arrivals. @default 3600 */
  readonly windowOverlapSeconds: number;
  /** How far back the first chat window starts. @default 30 */
  readonly windowLookbackDays: number;
  /**
   * Partitions `sync` runs at once, each after the streams it reads from (the worker runs one per
   * job, WORKER_CONCURRENCY at once). The TMS's own limits still bound the requests. As many as
   * TMS_MAX_CONCURRENCY's default: most partitions of a steady cycle send one request at a time, so
   * fewer would leave the allowed requests in flight unused (at 500 operators 4 took 1.13x the
   * time of 16). @default 16
   */
  readonly partitionConcurrency: number;
  /**
   * A run of one partition stops, failed, once it committed this many pages: a listing that never
   * ends (a new cursor with every page) cannot hold a run forever. What it committed stays, the
   * next run resumes from its checkpoint. @default 100000
   */
  readonly maxRunPages: number;
  /** A run of one partition stops, failed, after this many seconds (at most 2000000, 23 days), however it is paced. @default 43200 (12 h) */
  readonly maxRunSeconds: number;
  /**
   * Days `sync_runs` keeps a run; older runs are forgotten as new ones end, each partition's latest
   * run and latest success kept whatever their age (docs/store.md). A partition's run is a row, so
   * the history grows with partitions times runs: 500 operators every 5 minutes write ~1.4 million
   * rows (~180 MB) a day, ~1.3 GB kept at 7 days. 0 keeps every run. @default 7
   */
  readonly keepRunsDays: number;
}

/**
 * Which streams run when none are named (`sync`, the worker's schedulers, `trigger all`); config
 * file only. Streams named on the command line, in `trigger` or in a webhook run whatever these say.
 */
export interface StreamSelection {
  /** Only these streams; undefined: the whole catalogue. @default undefined */
  readonly include: readonly string[] | undefined;
  /** Not these streams (applied after `include`). @default [] */
  readonly exclude: readonly string[];
  /**
   * Streams in history mode (docs/history.md): every version of their records in
   * `<stream>__history`. The file takes `history: true` (all), a list, or `<stream>: { history: true }`. @default []
   */
  readonly history: readonly string[];
}

/** Everything the commands read (README.md, Configuration); env var names in brackets. */
export interface Settings {
  /**
   * The connection (TMS account and destination) these settings run: `default` is the environment's
   * and the file's top level; another is an entry of `connections` (docs/connections.md). @default 'default'
   */
  readonly connection: string;
  /** More connections, as the config file writes them, by name; their tokens are references (config file only). @default {} */
  readonly connections: Readonly<Record<string, ConnectionFile>>;
  /** The TMS base URL [TMS_BASE_URL]; required except for `demo` and `sim`. @default undefined */
  readonly baseUrl: string | undefined;
  /** API token exchanged by the login operation [TMS_API_TOKEN]. @default undefined */
  readonly apiToken: string | undefined;
  /** Path of the login operation [TMS_LOGIN_PATH]. @default '/auth/login-api-token' */
  readonly loginPath: string;
  /** Driver JWT for the Driver API instead of the access token [TMS_DRIVER_TOKEN]. @default undefined */
  readonly driverToken: string | undefined;
  /** Operators whose Driver API data is synced [TMS_OPERATORS, comma-separated]. @default [] */
  readonly operators: readonly string[];
  /** `sqlite:PATH` or `postgres://...` [STORE_URL]. @default 'sqlite:./data/tms.sqlite' */
  readonly storeUrl: string;
  /**
   * PostgreSQL: the schema holding the whole store, bookkeeping included, so several mirrors share
   * one database [STORE_SCHEMA]; `?schema=` in STORE_URL says the same. @default undefined (`public`)
   */
  readonly storeSchema: string | undefined;
  /** Redis for `worker`, `trigger`, `status` [REDIS_URL]. @default 'redis://127.0.0.1:6379' */
  readonly redisUrl: string;
  /** Ops HTTP server of `worker` [OPS_HOST]. @default '127.0.0.1' */
  readonly opsHost: string;
  /** [OPS_PORT] @default 9464 */
  readonly opsPort: number;
  /** pino level [LOG_LEVEL]. @default 'info' */
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Name of the sequence field in records [TMS_SEQUENCE_FIELD]; the watermark never depends on it. @default 'sequence' */
  readonly sequenceField: string;
  readonly sync: SyncSettings;
  /** The TMS's allowance and the client's patience (tms-settings.ts). */
  readonly tms: TmsSettings;
  /** The streams that run when none are named (config file only). */
  readonly streams: StreamSelection;
  /** Default schedule of every stream for `worker`. @default { everySeconds: 300 } */
  readonly schedule: ScheduleSetting;
  /** Per-stream schedules (config file only), by stream name. @default {} */
  readonly streamSchedules: Readonly<Record<string, ScheduleSetting>>;
  /**
   * When the worker runs each partition with `reconcile` (hard deletes, which `since` never
   * returns; docs/sync-engine.md), for the streams a reconcile run does something for; false:
   * never (config file only). @default { cron: '0 3 * * *' } (nightly, the worker's time zone)
   */
  readonly reconcileSchedule: ScheduleSetting | false;
  /** Per-stream reconcile schedules, or false for none (config file only). @default {} */
  readonly streamReconcileSchedules: Readonly<Record<string, ScheduleSetting | false>>;
  /** Queue, worker and ops settings of `worker`, `trigger` and `status` (worker-settings.ts). */
  readonly worker: WorkerSettings;
  /** Delivery of write-back commands by `push` and `worker` (command-settings.ts). */
  readonly commands: CommandSettings;
}

export const defaultSettings: Settings = Object.freeze({
  connection: 'default',
  connections: Object.freeze({}),
  baseUrl: undefined,
  apiToken: undefined,
  loginPath: '/auth/login-api-token',
  driverToken: undefined,
  operators: [],
  storeUrl: 'sqlite:./data/tms.sqlite',
  storeSchema: undefined,
  redisUrl: 'redis://127.0.0.1:6379',
  opsHost: '127.0.0.1',
  opsPort: 9464,
  logLevel: 'info',
  sequenceField: 'sequence',
  sync: Object.freeze({
    pageLimit: 1000,
    maxDeleteShare: 0.5,
    guardMinRows: 100,
    guardMinScopes: 10,
    windowOverlapSeconds: 3600,
    windowLookbackDays: 30,
    partitionConcurrency: 16,
    maxRunPages: 100_000,
    maxRunSeconds: 43_200,
    keepRunsDays: 7,
  }),
  tms: defaultTmsSettings,
  streams: Object.freeze({ include: undefined, exclude: Object.freeze([]), history: Object.freeze([]) }),
  schedule: Object.freeze({ everySeconds: 300 }),
  streamSchedules: Object.freeze({}),
  reconcileSchedule: Object.freeze({ cron: '0 3 * * *' }),
  streamReconcileSchedules: Object.freeze({}),
  worker: defaultWorkerSettings,
  commands: defaultCommandSettings,
});
