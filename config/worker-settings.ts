import { checkIntegers, type IntegerSettingTable, integersFromEnvironment } from './integer-settings.js';
import { isPlaceholderSecret } from './placeholder-secret.js';
import { SettingsError } from './settings-error.js';

/** The daemon's settings (`tms-sync worker`, `trigger`, `status`); env var names in brackets. */
export interface WorkerSettings {
  /** BullMQ queue name [QUEUE_NAME]. @default 'tms-sync' */
  readonly queueName: string;
  /** Redis key prefix of the queue [QUEUE_PREFIX]. @default 'tms' */
  readonly queuePrefix: string;
  /** Jobs (stream partitions) one worker process runs at once [WORKER_CONCURRENCY]. @default 4 */
  readonly concurrency: number;
  /**
   * Runs of one connection in flight across every worker process at once, kept in Redis as its
   * queue's global concurrency [WORKER_CONNECTION_CONCURRENCY]. Set by `worker --all-connections`
   * on each connection's queue, so one connection's backfill never holds every slot: below
   * WORKER_CONCURRENCY, at most half the fleet's slots. @default 2
   */
  readonly connectionConcurrency: number;
  /**
   * How many `worker --all-connections` processes of the fleet run each connection
   * [WORKER_CONNECTION_OWNERS]: each process holds only the connections it owns (their queue
   * workers, stores, clients), chosen among the live processes by rendezvous hashing
   * (jobs/fleet-members.ts), so a process's memory and Redis clients grow with its share of the
   * connections, not with all of them. 256: every process runs every connection. @default 1
   */
  readonly connectionOwners: number;
  /** Attempts of a sync job before it stays failed [JOB_ATTEMPTS]. @default 5 */
  readonly attempts: number;
  /** Base of the exponential back-off between attempts [JOB_BACKOFF_MS]. @default 10000 */
  readonly backoffMs: number;
  /**
   * Lock of an active job and of its stream partition [WORKER_LOCK_MS]: a killed worker's job is
   * taken over by another worker about this long after it died. @default 30000
   */
  readonly lockMs: number;
  /**
   * Times a job may lose its worker (killed, crashed, lock lost) and be taken over [WORKER_MAX_STALLS].
   * A takeover resumes from the checkpoint and loses nothing, so the bound only stops a job whose
   * page kills the process every time. @default 20
   */
  readonly maxStalls: number;
  /** Pause of the fleet's request budget after a 429 without Retry-After [RATE_LIMIT_PAUSE_MS]. @default 30000 */
  readonly rateLimitPauseMs: number;
  /** Bound of a graceful stop on SIGINT/SIGTERM [SHUTDOWN_TIMEOUT_MS]. @default 30000 */
  readonly shutdownTimeoutMs: number;
  /**
   * PostgreSQL: the schema where `worker --all-connections` keeps the views that union each stream
   * over every connection of the default connection's database (`connections views`), made again
   * when connections or their columns change; `off` for none [CONNECTION_VIEWS]. @default 'tms_all'
   */
  readonly connectionViews: string;
  /** Token of the Bull Board dashboard at /admin/queues [OPS_DASHBOARD_TOKEN]; unset: no dashboard. @default undefined */
  readonly dashboardToken: string | undefined;
  /** Shared secret of the HMAC signature of POST /webhooks/tms [TMS_WEBHOOK_SECRET]; unset: no webhook. @default undefined */
  readonly webhookSecret: string | undefined;
}

export const defaultWorkerSettings: WorkerSettings = Object.freeze({
  queueName: 'tms-sync',
  queuePrefix: 'tms',
  concurrency: 4,
  connectionConcurrency: 2,
  connectionOwners: 1,
  attempts: 5,
  backoffMs: 10_000,
  lockMs: 30_000,
  maxStalls: 20,
  rateLimitPauseMs: 30_000,
  shutdownTimeoutMs: 30_000,
  connectionViews: 'tms_all',
  dashboardToken: undefined,
  webhookSecret: undefined,
});

const numbers = {
  WORKER_CONCURRENCY: ['concurrency', 1, 256],
  WORKER_CONNECTION_CONCURRENCY: ['connectionConcurrency', 1, 256],
  WORKER_CONNECTION_OWNERS: ['connectionOwners', 1, 256],
  JOB_ATTEMPTS: ['attempts', 1, 100],
  JOB_BACKOFF_MS: ['backoffMs', 0, 86_400_000],
  WORKER_LOCK_MS: ['lockMs', 1000, 3_600_000],
  WORKER_MAX_STALLS: ['maxStalls', 1, 10_000],
  RATE_LIMIT_PAUSE_MS: ['rateLimitPauseMs', 1, 86_400_000],
  SHUTDOWN_TIMEOUT_MS: ['shutdownTimeoutMs', 1000, 3_600_000],
} as const satisfies IntegerSettingTable<WorkerSettings>;

const texts = {
  QUEUE_NAME: 'queueName',
  QUEUE_PREFIX: 'queuePrefix',
  CONNECTION_VIEWS: 'connectionViews',
} as const satisfies Record<string, keyof WorkerSettings>;

/** Set but blank is a mistake, not "unset": the operator meant to protect the dashboard or the webhook. */
const secrets = {
  OPS_DASHBOARD_TOKEN: 'dashboardToken',
  TMS_WEBHOOK_SECRET: 'webhookSecret',
} as const satisfies Record<string, keyof WorkerSettings>;

/** The worker settings the environment sets (checked; a bad number names its variable). */
/** Every environment variable of the group, by the key it sets (the config file's hints). */
export const workerVariables: Readonly<Record<string, keyof WorkerSettings>> = {
  ...Object.fromEntries(Object.entries(numbers).map(([name, [key]]) => [name, key])),
  ...texts,
};

export function workerFromEnvironment(env: NodeJS.ProcessEnv): Partial<WorkerSettings> {
  const out: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(texts)) {
    const value = env[name];
    if (value !== undefined && value !== '') out[key] = value;
  }
  for (const [name, key] of Object.entries(secrets)) {
    if (env[name] !== undefined) out[key] = env[name];
  }
  return { ...(out as Partial<WorkerSettings>), ...integersFromEnvironment<WorkerSettings>(env, numbers) };
}

/** Checks what the config file may have set; names the environment variable of the value. */
export function checkWorkerSettings(settings: WorkerSettings): void {
  // BullMQ joins prefix, queue name and job ids with ":" into Redis keys.
  for (const [name, value] of [
    ['QUEUE_NAME', settings.queueName],
    ['QUEUE_PREFIX', settings.queuePrefix],
  ] as const) {
    if (!/^[\w.-]+$/.test(value))
      throw new SettingsError(name, `expected letters, digits, ".", "_" or "-", got "${value}"`);
  }
  if (settings.connectionViews !== 'off' && !/^[a-z_][a-z0-9_]{0,62}$/.test(settings.connectionViews))
    throw new SettingsError(
      'CONNECTION_VIEWS',
      `expected a schema name (lower-case letters, digits and "_", at most 63, not starting with a digit) or "off", got "${settings.connectionViews}"`,
    );
  for (const [name, key] of Object.entries(secrets)) {
    const value = settings[key];
    if (value !== undefined && value.trim() === '') {
      throw new SettingsError(name, 'is set but blank: give it a value, or unset it to turn the feature off');
    }
    if (value !== undefined && isPlaceholderSecret(value)) {
      throw new SettingsError(
        name,
        'is a placeholder from an example: set a secret of your own (e.g. `openssl rand -hex 32`), or unset it to turn the feature off',
      );
    }
  }
  checkIntegers(settings, numbers);
}
