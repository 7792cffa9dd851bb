import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeysUnder, queueFixture } from '../jobs/support/queue-fixture.js';
import { writeWorkerConfig } from '../jobs/support/worker-process.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { writeBackCases } from './write-back/commands.js';
import { deliverWithKills, killLatency, killPlans } from './write-back/kill-deliverers.js';
import { deliverInProcess, playWriteBack } from './write-back/play.js';

// CI's quick profile; `npm run soak:write-back` runs many more (test/reliability/write-back-soak.ts).
const numRuns = Number(process.env.WRITE_BACK_RUNS ?? 3);
const killRuns = Number(process.env.WRITE_BACK_KILL_RUNS ?? 2);

/** tms-sim's own shapes, and another TMS's (amounts as strings, other envelopes, unsafe ids). */
const variants = [
  ['default', {}],
  [
    'alt shapes + unsafe ids + data.items singles',
    { recordShapes: 'alt', idStyle: 'unsafe', singleEnvelope: 'items' },
  ],
] as const;

const cases = dialects.flatMap((dialect) =>
  variants.map(([label, variant]) => ({ ...dialect, label, variant })),
);

describe.each(cases)('write-back on $name against $label', ({ fixture: makeFixture, variant }) => {
  const fixture: StoreFixture = makeFixture();
  afterAll(() => fixture.cleanup());

  it(
    'delivers every command exactly once under lost answers, resets, 5xx and 429: no duplicate, nothing pending, every failure with its reason',
    async () => {
      await fc.assert(
        fc.asyncProperty(writeBackCases, async (testCase) => {
          const store = await fixture.open();
          try {
            const { problems } = await playWriteBack(fixture, store, testCase, variant, deliverInProcess(2));
            expect(problems).toEqual([]);
          } finally {
            await store.close();
          }
        }),
        { numRuns },
      );
    },
    numRuns * 30_000,
  );
});

describe.each(dialects)('write-back on $name with deliverers killed', ({ fixture: makeFixture }) => {
  const fixture: StoreFixture = makeFixture();
  const queue = queueFixture();
  const dir = mkdtempSync(join(tmpdir(), 'tms-write-back-'));
  afterAll(async () => {
    await fixture.cleanup();
    await deleteKeysUnder(queue.redis, queue.prefix);
    await queue.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'delivers every command exactly once when push and worker processes are killed (SIGKILL) mid-delivery',
    async () => {
      const environment = {
        redisUrl: queue.settings.redisUrl,
        queuePrefix: queue.prefix,
        configPath: writeWorkerConfig(dir, 100),
      };
      await fc.assert(
        fc.asyncProperty(writeBackCases, killPlans, async (testCase, kills) => {
          const store = await fixture.open();
          try {
            const deliver = deliverWithKills(kills, environment, (held) => {
              if (process.env.WRITE_BACK_DEBUG) console.log(`killed holding ${held} commands`);
            });
            const slowed = { ...testCase, faults: { ...testCase.faults, ...killLatency } };
            const { problems } = await playWriteBack(fixture, store, slowed, {}, deliver);
            expect(problems).toEqual([]);
          } finally {
            await store.close();
            await deleteKeysUnder(queue.redis, queue.prefix);
          }
        }),
        { numRuns: killRuns },
      );
    },
    killRuns * 120_000,
  );
});
