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
  /** Of these connections (all the fleet runs), those this process is one of the owners of (`assignOwners`). */
  owned(connections: readonly string[]): ReadonlySet<string>;
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
 * every `beatMs`. Each connection runs in `connectionOwners` of the live members (`assignOwners`):
 * every member computes the same owners from the same members and connections. While Redis does
 * not answer, the members last read stay.
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
  // Asked once per connection a pass: computed once per list of connections and of members (both
  // replaced, never changed in place, when they change).
  let assigned:
    | { connections: readonly string[]; members: readonly string[]; mine: ReadonlySet<string> }
    | undefined;
  return {
    members: () => members,
    owned(connections) {
      if (assigned?.connections !== connections || assigned.members !== members) {
        const owners = assignOwners(connections, members, settings.connectionOwners);
        const mine = new Set(connections.filter((name) => owners.get(name)?.includes(id)));
        assigned = { connections, members, mine };
      }
      return assigned.mine;
    },
    async leave() {
      clearInterval(timer);
      await redis.eval(beatScript, 1, key, '', lostAfterMs, id).catch(() => undefined);
    },
  };
}

/**
 * The `count` members that run each connection: consistent hashing with bounded loads. The
 * connections are taken in order of name; each goes to the members whose rendezvous hash with its
 * name ranks highest among those holding fewer than their share, ceil(connections x count /
 * members). So no member holds more than its share (pure rendezvous hashing gave one of four
 * members 64 of 200 connections, and its runs were the late ones), and a member lost or joining
 * moves its share and, through the shares, a few others.
 */
export function assignOwners(
  connections: readonly string[],
  members: readonly string[],
  count: number,
): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  if (members.length <= count) {
    for (const connection of connections) owners.set(connection, [...members]);
    return owners;
  }
  const share = Math.ceil((connections.length * count) / members.length);
  const load = new Map(members.map((member) => [member, 0]));
  for (const connection of [...connections].sort()) {
    const ranked = members
      .map((member) => ({ member, rank: rendezvousRank(member, connection) }))
      .sort((a, b) => (a.rank < b.rank ? 1 : a.rank > b.rank ? -1 : 0))
      .map((entry) => entry.member);
    const withRoom = ranked.filter((member) => load.get(member)! < share);
    // Too few with room (possible with several owners each): the best ranked of the others.
    const chosen = [...withRoom, ...ranked.filter((member) => !withRoom.includes(member))].slice(0, count);
    for (const member of chosen) load.set(member, load.get(member)! + 1);
    owners.set(connection, chosen);
  }
  return owners;
}

function rendezvousRank(member: string, connection: string): string {
  return createHash('sha1').update(member).update('\0').update(connection).digest('hex');
}
