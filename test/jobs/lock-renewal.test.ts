import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { fakeEngine } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, startFixtureWorker } from './support/queue-fixture.js';

const fixtures: QueueFixture[] = [];
const workers: SyncWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop(5000)));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.cleanup()));
});

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly jobId?: string;
  readonly state?: string;
}

function capturingLogger() {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** What BullMQ's lock manager tells when a renewal of these jobs failed: the event, then an error each. */
function reportFailedRenewal(worker: SyncWorker, jobId: string): void {
  worker.worker.emit('lockRenewalFailed', [jobId]);
  worker.worker.emit('error', new Error(`could not renew lock for job ${jobId}`));
}

/** A worker on a queue of its own, its log lines kept. */
async function loggedWorker(engine = fakeEngine()) {
  const fixture = queueFixture();
  fixtures.push(fixture);
  const { logger, lines } = capturingLogger();
  const worker = await startFixtureWorker(fixture, engine, { logger });
  workers.push(worker);
  return { fixture, worker, lines };
}

describe("a job's lock renewal that failed", () => {
  it('is an error while the job is still active, and only that job is named', async () => {
    let release = () => {};
    const engine = fakeEngine(() => new Promise((resolve) => (release = () => resolve({}))));
    const { fixture, worker, lines } = await loggedWorker(engine);
    const run = await enqueueRun(fixture.queue, { stream: 'tasks', partition: 'op1', trigger: 'manual' });
    await eventually(() => engine.runs.length === 1, 10_000, 'the run to start');

    reportFailedRenewal(worker, run.jobId);
    const told = await eventually(() => lines.find((line) => line.jobId === run.jobId && line.level >= 50));
    expect(told).toMatchObject({ state: 'active' });
    expect(told.msg).toMatch(/could not renew the lock of a job still active/);
    // The error event itself is not logged a second time.
    expect(lines.filter((line) => line.msg === 'worker error')).toEqual([]);
    release();
  });

  it("is told at info once the job has left the active state (a stop's put-back raced the renewal)", async () => {
    const { fixture, worker, lines } = await loggedWorker();
    const run = await enqueueRun(fixture.queue, { stream: 'tasks', partition: 'op1', trigger: 'manual' });
    await eventually(async () => (await fixture.queue.getJobState(run.jobId)) === 'completed');

    reportFailedRenewal(worker, run.jobId);
    const told = await eventually(() =>
      lines.find((line) => line.msg.includes('lock renewal raced its end')),
    );
    expect(told).toMatchObject({ level: 30, jobId: run.jobId, state: 'completed' });
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });

  it('leaves every other worker error an error', async () => {
    const { worker, lines } = await loggedWorker();
    // A renewal error BullMQ did not announce first, and any other error.
    worker.worker.emit('error', new Error('could not renew lock for job unannounced'));
    worker.worker.emit('error', new Error('Connection is closed.'));
    expect(lines.filter((line) => line.msg === 'worker error').map((line) => line.level)).toEqual([50, 50]);
  });
});
