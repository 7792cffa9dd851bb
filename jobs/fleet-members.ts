import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { WorkerSettings } from '../config/worker-settings.js';
import { queueKeyPrefix } from './sync-queue.js';

export interface FleetMembersOptions {
  readonly redis: Redis;
  readonly settings: Pick<WorkerSettings, 'queuePrefix' | 'queueName' | 'connectionOwners'>;
  /** Called when a beat finds the members changed (one joined, left or was lost). */
  readonly onChange: () => void;
  /** This process's id among the members. @default `${hostname()}:${pid}:${random}` */
  readonly id?: string;
  /** How often the process says it is alive and reads the members. @default 2000 */
  readonly beatMs?: number;
  /** A member whose last beat is older than this is lost: its connections go to others. @default 15000 */
  readonly lostAfterMs?: number;
}

/** The `worker --all-connections` processes of one fleet, and which of them runs which connection. */
export interface FleetMembers {
  /** The live members' ids, sorted, as the last beat read them. */
  members(): readonly string[];
  /** Whether this process is one of the connection's `connectionOwners` (rendezvous hashing). */
  owns(connection: string): boolean;
  /** Stops beating and leaves at once, so the others take its connections at their next beat. */
  leave(): Promise<void>;
}

/** The sorted set of the fleet's members, each scored with the time (Redis's clock) it is lost at. */
export function fleetMembersKey(settings: Pick<WorkerSettings, 'queuePrefix' | 'queueName'>): string {
  return `${queueKeyPrefix(settings)}:fleet`;
}

// One round trip a beat, on Redis's clock (machines with skewed clocks agree): drops the lost,
// renews this member (ARGV[1], none when leaving) and answers the live ones.
const beatScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[1] ~= '' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
else
  redis.call('ZREM', KEYS[1], ARGV[3])
end
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

/**
 * Joins the fleet: beats at once (so the first pass over the connections knows the members) and
 * every `beatMs`. Each connection runs in `connectionOwners` of the live members, chosen by
 * rendezvous hashing of the member's id with the connection's name: every member computes the same
 * owners from the same members, and a member joining or lost moves only its share of the
 * connections. While Redis does not answer, the members last read stay.
 */
export async function joinFleet(options: FleetMembersOptions): Promise<FleetMembers> {
  const { redis, settings } = options;
  const key = fleetMembersKey(settings);
  const id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const beatMs = options.beatMs ?? 2000;
  const lostAfterMs = options.lostAfterMs ?? 15_000;
  let members: readonly string[] = [id];
  const beat = async () => {
    const read = ((await redis.eval(beatScript, 1, key, id, lostAfterMs, id)) as string[]).sort();
    const changed = read.join('\n') !== members.join('\n');
    members = read;
    if (changed) options.onChange();
  };
  await beat().catch(() => undefined);
  const timer = setInterval(() => void beat().catch(() => undefined), beatMs);
  timer.unref();
  return {
    members: () => members,
    owns: (connection) => ownersOf(connection, members, settings.connectionOwners).includes(id),
    async leave() {
      clearInterval(timer);
      await redis.eval(beatScript, 1, key, '', lostAfterMs, id).catch(() => undefined);
    },
  };
}

/** The `count` members that run the connection: those whose hash with its name ranks highest. */
export function ownersOf(connection: string, members: readonly string[], count: number): string[] {
  if (members.length <= count) return [...members];
  return members
    .map((member) => ({ member, rank: rendezvousRank(member, connection) }))
    .sort((a, b) => (a.rank < b.rank ? 1 : a.rank > b.rank ? -1 : 0))
    .slice(0, count)
    .map((entry) => entry.member);
}

function rendezvousRank(member: string, connection: string): string {
  return createHash('sha1').update(member).update('\0').update(connection).digest('hex');
}
