import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { assignOwners, type FleetMembers, joinFleet } from '../../jobs/fleet-members.js';
import { eventually, type QueueFixture, queueFixture } from './support/queue-fixture.js';

const names = (count: number) => Array.from({ length: count }, (_, i) => `account-${i}`);

describe('assignOwners (consistent hashing with bounded loads)', () => {
  it('gives each connection exactly `count` distinct owners among the members, the same on every member', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 8 }),
        fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        (members, connections, count) => {
          const owners = assignOwners(connections, members, count);
          const again = assignOwners([...connections].reverse(), [...members].reverse(), count);
          for (const connection of connections) {
            const of = owners.get(connection)!;
            expect(new Set(of).size).toBe(Math.min(count, members.length));
            for (const owner of of) expect(members).toContain(owner);
            expect([...again.get(connection)!].sort()).toEqual([...of].sort());
          }
        },
      ),
    );
  });

  it('shares 200 connections evenly over 4 members, and over 5 when a fifth joins', () => {
    const members = ['a:1', 'b:1', 'c:1', 'd:1'];
    const heldBy = (owners: Map<string, string[]>, all: string[]) =>
      all.map((member) => [...owners.values()].filter(([owner]) => owner === member).length);
    const before = assignOwners(names(200), members, 1);
    expect(heldBy(before, members)).toEqual([50, 50, 50, 50]);
    const after = assignOwners(names(200), [...members, 'e:1'], 1);
    expect(heldBy(after, [...members, 'e:1'])).toEqual([40, 40, 40, 40, 40]);
    const moved = names(200).filter((name) => after.get(name)![0] !== before.get(name)![0]);
    expect(moved.filter((name) => after.get(name)![0] === 'e:1')).toHaveLength(40);
    // The rest of what moved is the shares settling: a few.
    expect(moved.length).toBeLessThan(60);
  });
});

describe('joinFleet (real Redis)', () => {
  let fixture: QueueFixture;
  const joined: FleetMembers[] = [];
  afterEach(async () => {
    await Promise.all(joined.splice(0).map((member) => member.leave()));
    await fixture?.cleanup();
  });

  const join = async (id: string, changes: string[], lostAfterMs = 15_000, redis = fixture.redis) => {
    const member = await joinFleet({
      redis,
      settings: fixture.settings.worker,
      id,
      beatMs: 50,
      lostAfterMs,
      onChange: () => changes.push(id),
    });
    joined.push(member);
    return member;
  };
  const heldBy = (member: FleetMembers) => names(40).filter((name) => member.owned(names(40)).has(name));

  it('each connection is owned by exactly one live member; one that leaves hands all of its own to the others', async () => {
    fixture = queueFixture();
    const changes: string[] = [];
    const first = await join('first', changes);
    expect(heldBy(first)).toEqual(names(40));
    const second = await join('second', changes);
    expect(second.members()).toEqual(['first', 'second']);
    await eventually(() => first.members().length === 2, 2000, 'the first member sees the second');
    expect(changes).toContain('first');
    const [ofFirst, ofSecond] = [heldBy(first), heldBy(second)];
    expect(ofFirst.length).toBeGreaterThan(0);
    expect(ofSecond.length).toBeGreaterThan(0);
    expect([...ofFirst, ...ofSecond].sort()).toEqual(names(40).sort());

    await second.leave();
    await eventually(() => first.members().length === 1, 2000, 'the first member sees the second leave');
    expect(heldBy(first)).toEqual(names(40));
  });

  it('a member that stops beating (killed, its Redis gone) is lost after `lostAfterMs`, and its connections go to the others', async () => {
    fixture = queueFixture();
    const changes: string[] = [];
    const survivor = await join('survivor', changes, 400);
    const doomedRedis = fixture.connection();
    const doomed = await join('doomed', changes, 400, doomedRedis);
    await eventually(() => survivor.members().length === 2, 2000, 'both members seen');
    expect(heldBy(survivor).length).toBeLessThan(40);
    doomedRedis.disconnect();
    expect(doomed.members()).toContain('doomed');
    await eventually(() => survivor.members().length === 1, 3000, 'the silent member lost');
    expect(heldBy(survivor)).toEqual(names(40));
  });

  it('with WORKER_CONNECTION_OWNERS 2, both of two members own every connection', async () => {
    fixture = queueFixture({ WORKER_CONNECTION_OWNERS: '2' });
    const one = await join('one', []);
    const two = await join('two', []);
    await eventually(() => one.members().length === 2, 2000, 'both members seen');
    expect(heldBy(one)).toEqual(names(40));
    expect(heldBy(two)).toEqual(names(40));
  });
});
