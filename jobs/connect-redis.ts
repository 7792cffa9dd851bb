import { Redis, type RedisOptions } from 'ioredis';
import type { Settings } from '../config/settings.js';
import { TmsSyncError, transient } from '../src/tms-sync-error.js';

/**
 * Redis could not be reached when a command started (down, refusing the password, not Redis at
 * all): REDIS_URL is named, its password never. A configuration matter for the command line (exit
 * code 2); transient, since Redis may come back.
 */
export class RedisConnectionError extends TmsSyncError {
  readonly code = 'REDIS_UNREACHABLE';
  readonly retry = transient;
  override get preventsStart(): boolean {
    return true;
  }

  constructor(
    message: string,
    /** Redis answered and refused (a wrong or missing password, an ACL, a database it lacks, a replica): REDIS_URL itself is wrong. */
    readonly refused: boolean,
  ) {
    super(message);
  }
}

export interface ConnectRedisOptions {
  /** How long the first connection (and its AUTH) may take. @default 5000 */
  readonly timeoutMs?: number;
  /** ioredis options for the connection's life. @default BullMQ's: commands wait out a Redis restart */
  readonly redis?: RedisOptions;
}

/**
 * Opens a Redis connection and waits until it is ready, failing within `timeoutMs` with
 * RedisConnectionError naming REDIS_URL (password redacted) and Redis's own reason (`ECONNREFUSED`,
 * `WRONGPASS`, `NOAUTH`, `ERR DB index is out of range`, a read-only replica), before any key is
 * written. Once connected, the connection lives with `maxRetriesPerRequest:
 * null`, so a Redis restart later costs a wait, not the process. The caller closes it (`quit`).
 */
export async function connectRedis(
  settings: Pick<Settings, 'redisUrl'>,
  options: ConnectRedisOptions = {},
): Promise<Redis> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const redis = new Redis(settings.redisUrl, {
    maxRetriesPerRequest: null,
    connectTimeout: timeoutMs,
    ...options.redis,
    lazyConnect: true,
  });
  let reason: Error | undefined;
  const remember = (error: Error) => {
    reason = error;
  };
  redis.on('error', remember);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  let unusable: string | undefined;
  try {
    const ready = redis.connect().then(async () => {
      unusable = await unusableBecause(redis);
    });
    await Promise.race([ready, timeout]);
  } catch (error) {
    redis.disconnect();
    const why = (reason ?? (error as Error)).message;
    throw new RedisConnectionError(
      `cannot reach Redis at REDIS_URL=${redactRedisUrl(settings.redisUrl)}: ${why}`,
      reason?.name === 'ReplyError',
    );
  } finally {
    clearTimeout(timer);
    redis.off('error', remember);
  }
  if (unusable !== undefined) {
    redis.disconnect();
    throw new RedisConnectionError(
      `cannot use Redis at REDIS_URL=${redactRedisUrl(settings.redisUrl)}: ${unusable}`,
      true,
    );
  }
  return redis;
}

/**
 * Why a Redis that answered cannot hold the queue, checked before any key is written: ioredis
 * reports a failed SELECT only as an event and goes on in database 0 (someone else's, on a shared
 * Redis), and a replica refuses every write later, job by job. Undefined when it can.
 */
async function unusableBecause(redis: Redis): Promise<string | undefined> {
  const db = redis.options.db ?? 0;
  if (db > 0) {
    const selected = await redis.select(db).then(
      () => undefined,
      (error: Error) => error.message,
    );
    if (selected !== undefined)
      return `${selected}: the database number in REDIS_URL (/${db}) must be below the server's "databases" setting (16 by default)`;
  }
  // An ACL may forbid ROLE; then the first write tells.
  const role = await redis.role().catch(() => undefined);
  if (Array.isArray(role) && role[0] === 'slave') {
    const [, host, port] = role as [string, string, number];
    return `it is a read-only replica (of ${host}:${port}): point REDIS_URL at the primary`;
  }
  return undefined;
}

/**
 * REDIS_URL for messages: the password (or a lone user name, which Redis may take as one) and every
 * query value (ioredis reads options, `password` among them, from the query) as `***`.
 */
export function redactRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(not a URL, not shown)';
  }
  if (parsed.password) parsed.password = '***';
  else if (parsed.username) parsed.username = '***';
  for (const name of [...parsed.searchParams.keys()]) parsed.searchParams.set(name, '***');
  return parsed.toString();
}
