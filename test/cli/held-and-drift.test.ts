import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { runCli } from '../reliability/support/run-cli.js';
import { keyed, now, task } from '../store/records.js';
import { commitRecords, inRun } from '../store/run-pages.js';
import { dialects } from '../store/store-fixture.js';

// What needs a person, as the CLI shows it: deletes the guard held back, values that stopped
// fitting their typed column, and the command that approves held deletes.
describe.each(dialects)('held deletes and drift in the CLI on $name', ({ fixture: makeFixture }) => {
  const fixture = makeFixture();
  let storeUrl: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    storeUrl = await fixture.freshUrl();
    env = { STORE_URL: storeUrl, REDIS_URL: 'redis://127.0.0.1:1' };
    const store = await openStore(storeUrl);
    const tasks = Array.from({ length: 150 }, (_, i) =>
      task(`t${i}`, i === 0 ? { cashOnDelivery: 'cash' } : {}),
    );
    await commitRecords(store, 'tasks', { scope: '1001', records: keyed(tasks) }, { partition: '1001', now });
    await inRun(
      store,
      'tasks',
      (run) => run.markMissing({ scope: '1001', seenIds: ['t0'], reason: 'snapshot_missing' }),
      {
        partition: '1001',
        now,
      },
    );
    await store.close();
  });
  afterAll(() => fixture.cleanup());

  it('status lists the held scope with the command that applies it, and the drifting column', async () => {
    const text = await runCli(['status'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('deletes held back by the mass-delete guard');
    expect(text.stdout).toMatch(
      /tasks\/1001 +149 of 150 +snapshot_missing .* tms-sync approve-deletes tasks 1001/,
    );
    expect(text.stdout).toMatch(/tasks\.cash_on_delivery +number +1 +string "cash"/);
    const json = JSON.parse((await runCli(['status', '--json'], env)).stdout);
    expect(json.heldDeletes).toMatchObject([
      { stream: 'tasks', scope: '1001', wouldDelete: 149, approvedAt: null },
    ]);
    expect(json.drift).toMatchObject([{ stream: 'tasks', column: 'cash_on_delivery', drift: 1 }]);
  }, 60_000);

  it('schema lists every typed column of a stream with its origin and drift', async () => {
    const result = await runCli(['schema', 'tasks'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^tasks\n/);
    expect(result.stdout).toMatch(/planned_start +(text|timestamptz) +planned\.start +spec/);
    expect(result.stdout).toMatch(
      /cash_on_delivery +numeric +cashOnDelivery +spec +1 \(latest: string "cash"\)/,
    );
    const json = JSON.parse((await runCli(['schema', 'tasks', '--json'], env)).stdout);
    expect(json.find((column: { column: string }) => column.column === 'status')).toMatchObject({
      type: 'text',
      path: 'status',
      origin: 'spec',
      drift: 0,
    });
    const unknown = await runCli(['schema', 'nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown stream nope');
  }, 60_000);

  it('approve-deletes approves a held scope once, and says so when nothing is held', async () => {
    const none = await runCli(['approve-deletes', 'tasks', '1002'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('tasks: no held deletes in 1002');
    const approved = await runCli(['approve-deletes', 'tasks', '1001'], env);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe('tasks: approved the held deletes of 1001; the next run applies them\n');
    const store = await openStore(storeUrl);
    try {
      expect((await store.heldDeletes())[0]!.approvedAt).not.toBeNull();
      const pass = await inRun(
        store,
        'tasks',
        (run) => run.markMissing({ scope: '1001', seenIds: ['t0'], reason: 'snapshot_missing' }),
        { partition: '1001', now },
      );
      expect(pass).toMatchObject({ deleted: 149, held: 0 });
    } finally {
      await store.close();
    }
  }, 60_000);
});
