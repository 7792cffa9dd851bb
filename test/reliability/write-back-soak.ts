/**
 * `npm run soak:write-back`: the write-back property of write-back.property.test.ts with many cases,
 * on each dialect, against tms-sim's default and another TMS's shapes, in-process deliverers; then
 * fewer cases with push and worker processes killed (SIGKILL) mid-delivery. SOAK_RUNS (default 300)
 * and SOAK_KILL_RUNS (default 20) cases per dialect, SOAK_DIALECTS (default sqlite,postgres),
 * SOAK_SEED to replay. Prints per dialect the commands delivered, the faults injected, the kills,
 * the duplicates and any other problem; exit code 1 on one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { deleteKeysUnder, queueFixture } from '../jobs/support/queue-fixture.js';
import { writeWorkerConfig } from '../jobs/support/worker-process.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { writeBackCases } from './write-back/commands.js';
import { deliverWithKills, killLatency, killPlans } from './write-back/kill-deliverers.js';
import { type CaseReport, type Deliver, deliverInProcess, playWriteBack } from './write-back/play.js';

const runs = Number(process.env.SOAK_RUNS ?? 300);
const killRuns = Number(process.env.SOAK_KILL_RUNS ?? 20);
const wanted = (process.env.SOAK_DIALECTS ?? 'sqlite,postgres').split(',');
const seed = process.env.SOAK_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.SOAK_SEED);
const variants = [{}, { recordShapes: 'alt', idStyle: 'unsafe', singleEnvelope: 'items' }] as const;

interface Tally {
  cases: number;
  commands: number;
  statuses: Record<string, number>;
  injected: Record<string, number>;
  kills: number;
  heldAtKill: number;
  /** Creates done only after reading their record back (their answer was lost). */
  foundByReadBack: number;
  /** Idempotent commands done after a 404/409 that followed a doubt, by reading the target's state. */
  settledByState: number;
  duplicates: number;
  problems: string[];
}

const tally = (): Tally => ({
  cases: 0,
  commands: 0,
  statuses: {},
  injected: {},
  kills: 0,
  foundByReadBack: 0,
  settledByState: 0,
  heldAtKill: 0,
  duplicates: 0,
  problems: [],
});

function count(into: Tally, report: CaseReport): void {
  into.cases++;
  into.commands += report.commands.length;
  for (const command of report.commands) {
    into.statuses[command.status] = (into.statuses[command.status] ?? 0) + 1;
    if (command.status !== 'done') continue;
    if (command.lastError?.includes('found by reading back')) into.foundByReadBack++;
    if (command.lastError?.includes('after an attempt in doubt')) into.settledByState++;
  }
  for (const [kind, n] of Object.entries(report.injected))
    into.injected[kind] = (into.injected[kind] ?? 0) + n;
  into.duplicates += report.problems.filter((problem) => /upstream for|twice/.test(problem)).length;
  into.problems.push(...report.problems);
}

function line(name: string, what: string, t: Tally, seconds: number): string {
  const statuses = Object.entries(t.statuses)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const faults = Object.entries(t.injected)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  const kills = t.kills ? `, ${t.kills} kills holding ${t.heldAtKill} commands in flight` : '';
  const doubts = `${t.foundByReadBack} creates found by reading back, ${t.settledByState} settled by the target's state`;
  return `${name} ${what}: ${t.cases} cases, ${t.commands} commands (${statuses}; ${doubts}); faults injected: ${faults}${kills}; duplicates ${t.duplicates}, problems ${t.problems.length} (${seconds} s, seed ${seed})`;
}

/** One soak of `numRuns` cases: in-process deliverers, or processes killed mid-delivery (tms-sim's shapes, slowed). */
async function soak(fixture: StoreFixture, numRuns: number, t: Tally, killing: boolean) {
  const property = fc.asyncProperty(
    writeBackCases,
    fc.constantFrom(...variants),
    killPlans,
    async (testCase, variant, kills) => {
      const store = await fixture.open();
      try {
        const report = killing
          ? await playWriteBack(
              fixture,
              store,
              { ...testCase, faults: { ...testCase.faults, ...killLatency } },
              {},
              killer(t, kills),
            )
          : await playWriteBack(fixture, store, testCase, variant, deliverInProcess(2));
        count(t, report);
        if (report.problems.length > 0) throw new Error(report.problems.slice(0, 10).join('\n'));
      } finally {
        await store.close();
        await deleteKeysUnder(queue.redis, queue.prefix);
      }
    },
  );
  return fc.check(property, { numRuns, seed, endOnFailure: true });
}

function killer(t: Tally, kills: Parameters<typeof deliverWithKills>[0]): Deliver {
  t.kills += kills.length;
  return deliverWithKills(kills, environment, (held) => {
    t.heldAtKill += held;
  });
}

let failed = false;
const queue = queueFixture();
const dir = mkdtempSync(join(tmpdir(), 'tms-write-back-soak-'));
const environment = {
  redisUrl: queue.settings.redisUrl,
  queuePrefix: queue.prefix,
  configPath: writeWorkerConfig(dir, 100),
};
for (const { name, fixture: makeFixture } of dialects.filter((dialect) => wanted.includes(dialect.name))) {
  const fixture = makeFixture();
  for (const [what, numRuns, killing] of [
    ['in-process', runs, false],
    ['with kills', killRuns, true],
  ] as const) {
    if (numRuns === 0) continue;
    const t = tally();
    const started = Date.now();
    const details = await soak(fixture, numRuns, t, killing);
    console.log(line(name, what, t, Math.round((Date.now() - started) / 1000)));
    if (details.failed) {
      failed = true;
      console.log(fc.defaultReportMessage(details));
    }
  }
  await fixture.cleanup();
}
await queue.cleanup();
rmSync(dir, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
