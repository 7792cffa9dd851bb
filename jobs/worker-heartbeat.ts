import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { WorkerSettings } from '../config/worker-settings.js';
import { notReadyReasons, type Readiness } from './readiness.js';
import { queueKeyPrefix } from './sync-queue.js';

/** How often a worker says it is alive. @default 10 s; alive while its last beat is younger than 3 beats. */
export const defaultHeartbeatMs = 10_000;
/** Entries of workers gone this long are removed when a worker starts. */
const forgetAfterMs = 24 * 3600_000;

/** What a worker writes with each beat, by its id (`host:pid`, BullMQ's worker name). */
interface BeatRecord {
  readonly host: string;
  readonly pid: number;
  readonly startedAt: number;
  readonly intervalMs: number;
  /** Redis's clock at the beat, so machines with skewed clocks agree. */
  readonly beatAt: number;
  /** Set by a graceful stop. */
  readonly stoppedAt?: number;
  /** Whether it could do its job at the beat (`/readyz`), and why not; absent from older workers. */
  readonly ready?: boolean;
  readonly notReady?: readonly string[];
}

/** A worker as its heartbeats describe it. */
export interface WorkerBeat {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAt: Date;
  readonly lastBeatAt: Date;
  /** Its last beat is younger than 3 of its intervals and it did not stop. */
  readonly alive: boolean;
  readonly stoppedAt: Date | null;
  /** Whether it could do its job at its last beat, as its `/readyz` said; null when it did not say. */
  readonly ready: boolean | null;
  /** Why not (`tms: ...`, `runs: ...`); empty when ready. */
  readonly notReady: readonly string[];
}

export interface HeartbeatOptions {
  readonly redis: Redis;
  readonly settings: Pick<WorkerSettings, 'queuePrefix' | 'queueName'>;
  /** The worker's id, as BullMQ names it. @default `${hostname()}:${process.pid}` */
  readonly id?: string;
  /** @default defaultHeartbeatMs */
  readonly intervalMs?: number;
  /** Whether the worker can do its job, sent with each beat so `status` says what `/readyz` says. @default not sent */
  readonly readiness?: () => Promise<Readiness>;
}

export interface Heartbeat {
  /** Beats once more with `stoppedAt`, so `status` tells a stopped worker from a dead one. */
  stop(): Promise<void>;
}

/** The hash holding every worker's latest beat. */
export function heartbeatKey(settings: Pick<WorkerSettings, 'queuePrefix' | 'queueName'>): string {
  return `${queueKeyPrefix(settings)}:workers`;
}

/**
 * Writes the worker's heartbeat to Redis at once and every `intervalMs`: `status` and `/metrics`
 * read them to say whether any worker runs. A beat that fails (Redis away) is skipped; the next
 * one tries again. Forgets workers gone for a day when it starts.
 */
export async function startHeartbeat(options: HeartbeatOptions): Promise<Heartbeat> {
  const { redis } = options;
  const key = heartbeatKey(options.settings);
  const id = options.id ?? `${hostname()}:${process.pid}`;
  const intervalMs = options.intervalMs ?? defaultHeartbeatMs;
  const base = { host: hostname(), pid: process.pid, startedAt: Date.now(), intervalMs };
  const beat = async (extra: Partial<BeatRecord> = {}) => {
    const readiness = await options.readiness?.().catch(() => undefined);
    const said = readiness ? { ready: readiness.ready, notReady: notReadyReasons(readiness) } : {};
    const beatAt = await redisClockNow(redis);
    await redis.hset(key, id, JSON.stringify({ ...base, beatAt, ...said, ...extra } satisfies BeatRecord));
  };
  await forgetGone(redis, key);
  await beat().catch(() => undefined);
  const timer = setInterval(() => void beat().catch(() => undefined), intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await beat({ stoppedAt: await redisClockNow(redis) }).catch(() => undefined);
    },
  };
}

/** Every worker that beat within the last day, alive ones first. */
export async function readHeartbeats(
  redis: Redis,
  settings: Pick<WorkerSettings, 'queuePrefix' | 'queueName'>,
): Promise<WorkerBeat[]> {
  const [now, entries] = await Promise.all([redisNow(redis), redis.hgetall(heartbeatKey(settings))]);
  return Object.entries(entries)
    .flatMap(([id, text]) => {
      const record = parseBeat(text);
      return record ? [describeBeat(id, record, now)] : [];
    })
    .sort((a, b) => Number(b.alive) - Number(a.alive) || b.lastBeatAt.getTime() - a.lastBeatAt.getTime());
}

function describeBeat(id: string, record: BeatRecord, now: number): WorkerBeat {
  return {
    id,
    host: record.host,
    pid: record.pid,
    startedAt: new Date(record.startedAt),
    lastBeatAt: new Date(record.beatAt),
    alive: record.stoppedAt === undefined && now - record.beatAt < 3 * record.intervalMs,
    stoppedAt: record.stoppedAt === undefined ? null : new Date(record.stoppedAt),
    ready: record.ready ?? null,
    notReady: record.notReady ?? [],
  };
}

function parseBeat(text: string): BeatRecord | undefined {
  try {
    const record = JSON.parse(text) as BeatRecord;
    return typeof record.beatAt === 'number' && typeof record.intervalMs === 'number' ? record : undefined;
  } catch {
    return undefined;
  }
}

async function forgetGone(redis: Redis, key: string): Promise<void> {
  const now = await redisNow(redis).catch(() => undefined);
  if (now === undefined) return;
  const entries = await redis.hgetall(key).catch(() => ({}) as Record<string, string>);
  const gone = Object.entries(entries)
    .filter(([, text]) => now - (parseBeat(text)?.beatAt ?? 0) > forgetAfterMs)
    .map(([id]) => id);
  if (gone.length > 0) await redis.hdel(key, ...gone).catch(() => undefined);
}

async function redisNow(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** How long one read of Redis's clock serves the beats of a process (all its connections'). */
const clockReadMs = 5 * 60_000;
const clockOffsets = new WeakMap<Redis, { readonly offsetMs: number; readonly readAt: number }>();

/** Redis's clock as this process last read it, moved on by its own: a beat needs no round trip for it. */
async function redisClockNow(redis: Redis): Promise<number> {
  const known = clockOffsets.get(redis);
  if (known && performance.now() - known.readAt < clockReadMs) return Date.now() + known.offsetMs;
  const now = await redisNow(redis);
  clockOffsets.set(redis, { offsetMs: now - Date.now(), readAt: performance.now() });
  return now;
}
