import { describe, expect, it } from 'vitest';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import { scenarioVariants } from '../reliability/convergence/scenario.js';
import { stateOf } from '../store/run-pages.js';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

// A snapshot pass of one page identical to the last one committed writes nothing (pass-digest.ts):
// its state keeps its version. Anything that makes the rows differ from that pass writes again.
// Against tms-sim's default and its other record shapes, sequence fields, ids, envelopes and tokens.
describe.each(scenarioVariants)('against %s', (_label, variant) => {
  describeOnEachDialect('an unchanged snapshot pass', (fixture) => {
    const { store, setup } = useSyncSetup(fixture, { invoices: 20, clients: 5, operators: 1, variant });
    const operator = () => setup().settings.operators[0]!;
    const liveTasks = async () => {
      const [row] = await fixture.query<{ live: number | string }>(
        await fixture.url(),
        'select count(*) as live from tasks where deleted_at is null',
      );
      return Number(row!.live);
    };

    it('writes nothing when the list is the one stored, and writes again when the rows or the run ask for it', async () => {
      await setup().engine.run(['tasks']);
      const written = await stateOf(store(), 'tasks', operator());
      const listed = await liveTasks();
      expect(listed).toBeGreaterThan(1);

      const same = await setup().engine.runPartition('tasks', operator());
      expect(same).toMatchObject({ result: 'succeeded', pages: 1, records: listed, unchanged: listed });
      expect(same.inserted + same.updated + same.deleted).toBe(0);
      expect((await stateOf(store(), 'tasks', operator())).version).toBe(written.version);

      // A row gone from the live rows behind the run's back: the pass is written, the row comes back.
      await fixture.query(
        await fixture.url(),
        "update tasks set deleted_at = synced_at, deleted_reason = 'upstream' where id = (select min(id) from tasks)",
      );
      expect(await liveTasks()).toBe(listed - 1);
      const restored = await setup().engine.runPartition('tasks', operator());
      expect(restored.result).toBe('succeeded');
      expect(await liveTasks()).toBe(listed);
      const rewritten = await stateOf(store(), 'tasks', operator());
      expect(rewritten.version).toBeGreaterThan(written.version);

      // `--full` writes the pass whatever the digest says, and the next pass is compared with it.
      await setup().engine.runPartition('tasks', operator(), { full: true });
      const full = await stateOf(store(), 'tasks', operator());
      expect(full.version).toBeGreaterThan(rewritten.version);
      await setup().engine.runPartition('tasks', operator());
      expect((await stateOf(store(), 'tasks', operator())).version).toBe(full.version);
    });

    it('keeps a pass whose answers equal the last to the byte, unread, while the scope holds that many live rows', async () => {
      // Rides: no stream fetches by their ids, so their answers are held unread (snapshot-strategy.ts).
      const liveRides = async () => {
        const [row] = await fixture.query<{ live: number | string }>(
          await fixture.url(),
          'select count(*) as live from rides where deleted_at is null',
        );
        return Number(row!.live);
      };
      await setup().engine.run(['rides']);
      const written = await stateOf(store(), 'rides', operator());
      expect(written.strategyState).toMatchObject({
        answerDigest: expect.any(String),
        answerRecords: await liveRides(),
      });
      const listed = await liveRides();
      expect(listed).toBeGreaterThan(1);

      const same = await setup().engine.runPartition('rides', operator());
      expect(same).toMatchObject({ result: 'succeeded', pages: 1, records: listed, unchanged: listed });
      expect((await stateOf(store(), 'rides', operator())).version).toBe(written.version);
      // Kept by the answers alone: the records' digest, which would have to be read, matches nothing.
      const { passDigest, ...rest } = written.strategyState as { passDigest: string };
      await fixture.query(
        await fixture.url(),
        `update sync_state set strategy_state = '${JSON.stringify({ ...rest, passDigest: 'none' })}' where stream = 'rides'`,
      );
      const unread = await stateOf(store(), 'rides', operator());
      expect(await setup().engine.runPartition('rides', operator())).toMatchObject({ unchanged: listed });
      expect((await stateOf(store(), 'rides', operator())).version).toBe(unread.version);
      expect(passDigest).toEqual(expect.any(String));

      // One live row fewer than the pass had records: the answers are read and the row comes back.
      await fixture.query(
        await fixture.url(),
        "update rides set deleted_at = synced_at, deleted_reason = 'upstream' where id = (select min(id) from rides)",
      );
      const restored = await setup().engine.runPartition('rides', operator());
      expect(restored.result).toBe('succeeded');
      expect(await liveRides()).toBe(listed);
      expect(await differencesFromTruth(store(), await setup().admin.truth(), ['rides'])).toEqual([]);
      // The same in a plan, whose runs take the scope's live rows from one read of the stream (plan-reads.ts).
      await fixture.query(
        await fixture.url(),
        "update rides set deleted_at = synced_at, deleted_reason = 'upstream' where id = (select max(id) from rides)",
      );
      const [planned] = await setup().engine.run(['rides']);
      expect(planned).toMatchObject({ result: 'succeeded', updated: 1, unchanged: listed - 1 });
      expect(await liveRides()).toBe(listed);
      expect(await setup().engine.run(['rides'])).toMatchObject([{ result: 'succeeded', unchanged: listed }]);

      // A state from before answers were compared learns their digest from its first unchanged pass, once.
      await fixture.query(
        await fixture.url(),
        `update sync_state set strategy_state = '{"lastPassAt":"2026-01-01T00:00:00.000Z","passDigest":"${
          ((await stateOf(store(), 'rides', operator())).strategyState as { passDigest: string }).passDigest
        }"}' where stream = 'rides'`,
      );
      const old = await stateOf(store(), 'rides', operator());
      expect(old.strategyState).not.toHaveProperty('answerDigest');
      const learning = await setup().engine.runPartition('rides', operator());
      expect(learning).toMatchObject({ result: 'succeeded', unchanged: listed, inserted: 0, updated: 0 });
      const learned = await stateOf(store(), 'rides', operator());
      expect(learned.version).toBeGreaterThan(old.version);
      expect(learned.strategyState).toMatchObject({
        answerDigest:
          written.strategyState && (written.strategyState as { answerDigest: string }).answerDigest,
      });
      await setup().engine.runPartition('rides', operator());
      expect((await stateOf(store(), 'rides', operator())).version).toBe(learned.version);

      // A digest that no longer matches answers whose records did not change (an older form of the
      // digest, the TMS's bytes changed once) is learned again, so the next pass is kept unread.
      await fixture.query(
        await fixture.url(),
        `update sync_state set strategy_state = '${JSON.stringify({ ...(learned.strategyState as object), answerDigest: 'stale' })}' where stream = 'rides'`,
      );
      const stale = await stateOf(store(), 'rides', operator());
      expect(await setup().engine.runPartition('rides', operator())).toMatchObject({
        unchanged: listed,
        updated: 0,
      });
      const relearned = await stateOf(store(), 'rides', operator());
      expect(relearned.version).toBeGreaterThan(stale.version);
      expect(relearned.strategyState).toMatchObject({
        answerDigest: (learned.strategyState as { answerDigest: string }).answerDigest,
      });
      await setup().engine.runPartition('rides', operator());
      expect((await stateOf(store(), 'rides', operator())).version).toBe(relearned.version);

      // A malformed answer held unread fails the run when read, as it would on arrival; nothing is marked.
      await setup().admin.setHostile({ mode: 'invalid-json', path: '/driver-api/rides/', count: 1 });
      const malformed = await setup().engine.runPartition('rides', operator());
      expect(malformed).toMatchObject({ result: 'failed', error: expect.stringMatching(/not valid JSON/) });
      expect(await liveRides()).toBe(listed);
      expect((await stateOf(store(), 'rides', operator())).version).toBe(relearned.version);
      await setup().admin.clearHostile();
      expect(await setup().engine.runPartition('rides', operator())).toMatchObject({ unchanged: listed });

      // A changed list is read and written.
      await setup().admin.applyChanges(30, 3, { streams: ['driver'] });
      const changed = await setup().engine.runPartition('rides', operator());
      expect(changed.result).toBe('succeeded');
      expect(await differencesFromTruth(store(), await setup().admin.truth(), ['rides'])).toEqual([]);
    });

    it('keeps the tasks unread with the ids other streams fetch by, and those streams equal the TMS', async () => {
      const streams = ['tasks', 'goods', 'dossier_folders', 'client_packaging_balances'];
      await setup().engine.run(streams);
      const written = await stateOf(store(), 'tasks', operator());
      expect(written.strategyState).toMatchObject({ references: { 'goods.id': expect.any(String) } });
      // Kept by the answers alone (the records' digest matches nothing), the ids from the state.
      const { passDigest: _, ...rest } = written.strategyState as { passDigest: string };
      await fixture.query(
        await fixture.url(),
        `update sync_state set strategy_state = '${JSON.stringify({ ...rest, passDigest: 'none' })}' where stream = 'tasks'`,
      );
      const unread = await stateOf(store(), 'tasks', operator());
      const summaries = await setup().engine.run(streams);
      expect(summaries.every((summary) => summary.result === 'succeeded')).toBe(true);
      expect((await stateOf(store(), 'tasks', operator())).version).toBe(unread.version);
      expect(await differencesFromTruth(store(), await setup().admin.truth(), streams)).toEqual([]);

      // The TMS changes: every stream follows.
      await setup().admin.applyChanges(30, 3, { streams: ['driver'] });
      await setup().engine.run(streams);
      expect(await differencesFromTruth(store(), await setup().admin.truth(), streams)).toEqual([]);
    });

    it('writes the pass again once the TMS changed the list, and the store equals it', async () => {
      await setup().engine.run(['tasks', 'goods', 'rides']);
      const before = await stateOf(store(), 'tasks', operator());
      await setup().admin.applyChanges(30, 3, { streams: ['driver'] });
      const summaries = await setup().engine.run(['tasks', 'goods', 'rides']);
      expect(summaries.every((summary) => summary.result === 'succeeded')).toBe(true);
      const streams = ['tasks', 'goods', 'rides'];
      expect(await differencesFromTruth(store(), await setup().admin.truth(), streams)).toEqual([]);
      const tasks = summaries.find((summary) => summary.stream === 'tasks')!;
      const after = await stateOf(store(), 'tasks', operator());
      expect(tasks.inserted + tasks.updated + tasks.deleted).toBeGreaterThan(0);
      expect(after.version).toBeGreaterThan(before.version);
    });
  });
});
