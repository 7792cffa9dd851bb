import { afterEach, describe, expect, it } from 'vitest';
import { SettingsError } from '../../config/settings-error.js';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { classifyFailure } from '../../jobs/job-outcome.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { AuthError, HttpStatusError, NetworkError, PausedError } from '../../src/client/client-errors.js';
import { createLocalBudget, type RequestBudget } from '../../src/client/request-budget.js';
import {
  SchemaMovedError,
  StateConflictError,
  StoreRefusedError,
  UnstorableRecordError,
} from '../../src/store/store-errors.js';
import { RecordKeyError, SyncProtocolError } from '../../src/sync/sync-errors.js';
import { describeError } from '../../src/tms-sync-error.js';
import { type FakeBehaviour, fakeEngine } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, startFixtureWorker } from './support/queue-fixture.js';

const rateLimited = () =>
  new HttpStatusError('too many requests', {
    status: 429,
    retryAfterMs: 1500,
    target: { method: 'GET', path: '/invoice/invoices/' },
  });

describe('classifyFailure', () => {
  it.each([
    ['a 429 with its Retry-After', rateLimited(), { kind: 'rate-limited', retryAfterMs: 1500 }],
    [
      'a pause longer than the request may wait',
      new PausedError(60_000, { ceilingMs: 1000, setting: 'TMS_REQUEST_CEILING_SECONDS' }),
      { kind: 'rate-limited', retryAfterMs: 60_000 },
    ],
    ['a 5xx', new HttpStatusError('boom', { status: 503 }), { kind: 'transient' }],
    ['a network failure', new NetworkError('reset', { mayHaveReachedServer: true }), { kind: 'transient' }],
    [
      'a refused API token',
      new AuthError('TMS_AUTH_LOGIN_FAILED', 'refused', { status: 401 }),
      { kind: 'unrecoverable' },
    ],
    ['a 400', new HttpStatusError('bad', { status: 400 }), { kind: 'unrecoverable' }],
    ['a configuration error', new SettingsError('TMS_OPERATORS', 'missing'), { kind: 'unrecoverable' }],
    ['a state conflict', new StateConflictError('invoices', '', 3, 4), { kind: 'conflict' }],
    [
      'a broken sync rule',
      new SyncProtocolError('invoices', 'maxSequence went back'),
      { kind: 'unrecoverable' },
    ],
    [
      'a record without a key',
      new RecordKeyError({ stream: 'invoices', partition: '', where: 'page 1' }, 1, 2, "no 'id'"),
      { kind: 'unrecoverable' },
    ],
    ['columns that kept moving', new SchemaMovedError('invoices', 5), { kind: 'transient' }],
    [
      'a write the database refuses for what it holds',
      new StoreRefusedError('the page of invoices', Object.assign(new Error('bad input'), { code: '22P05' })),
      { kind: 'unrecoverable' },
    ],
    [
      'a record nested too deep to store',
      new UnstorableRecordError('invoices', '7', 'it is nested too deep to serialize'),
      { kind: 'unrecoverable' },
    ],
    ['anything else', new TypeError('x is not a function'), { kind: 'transient' }],
  ])('maps %s', (_what, error, expected) => {
    expect(classifyFailure(error)).toMatchObject(expected);
  });
});

describe('job outcomes in BullMQ', () => {
  let fixture: QueueFixture;
  let worker: SyncWorker | undefined;
  let budget: RequestBudget;
  afterEach(async () => {
    await worker?.stop(5000);
    worker = undefined;
    await fixture?.cleanup();
  });

  async function run(behave: FakeBehaviour, env: NodeJS.ProcessEnv = {}) {
    fixture = queueFixture({ JOB_ATTEMPTS: '3', ...env });
    const engine = fakeEngine(behave);
    budget = createLocalBudget(0);
    worker = await startFixtureWorker(fixture, engine, { budget });
    const enqueued = await enqueueRun(fixture.queue, {
      stream: 'invoices',
      partition: '',
      trigger: 'manual',
    });
    const job = async () => (await fixture.queue.getJob(enqueued.jobId))!;
    return { engine, job };
  }

  it("pauses the fleet's request budget for the Retry-After of a 429 and delays every job until it ends, counting no attempt", async () => {
    const { engine, job } = await run((entry) =>
      engine.runs.indexOf(entry) === 0
        ? { result: 'failed', error: 'HttpStatusError [TMS_RATE_LIMITED]', cause: rateLimited() }
        : {},
    );
    const paused = await eventually(
      async () => (await budget.pausedForMs()) > 0 && budget.pausedForMs(),
      5000,
      'the pause',
    );
    expect(paused).toBeLessThanOrEqual(1500);
    expect(await (await job()).getState()).toBe('delayed');
    // Another partition's job does not start while the pause lasts: it is delayed too.
    const other = await enqueueRun(fixture.queue, { stream: 'clients', partition: '', trigger: 'manual' });
    await eventually(
      async () => (await fixture.queue.getJobState(other.jobId)) === 'delayed',
      5000,
      'the other job delayed',
    );
    expect(engine.runs.map((entry) => entry.stream)).toEqual(['invoices']);
    await eventually(
      async () => (await (await job()).getState()) === 'completed',
      5000,
      'the job after the pause',
    );
    expect(engine.runs[1]!.startedAt - engine.runs[0]!.startedAt).toBeGreaterThanOrEqual(1300);
    expect((await job()).attemptsMade).toBe(1);
  });

  it('pauses for RATE_LIMIT_PAUSE_MS when the 429 carries no Retry-After', async () => {
    const { engine, job } = await run(
      (entry) =>
        engine.runs.indexOf(entry) === 0
          ? { result: 'failed', error: 'x', cause: new HttpStatusError('slow down', { status: 429 }) }
          : {},
      { RATE_LIMIT_PAUSE_MS: '700' },
    );
    const paused = await eventually(
      async () => (await budget.pausedForMs()) > 0 && budget.pausedForMs(),
      5000,
      'the pause',
    );
    expect(paused).toBeLessThanOrEqual(700);
    await eventually(async () => (await (await job()).getState()) === 'completed', 5000, 'the job');
    expect(engine.runs[1]!.startedAt - engine.runs[0]!.startedAt).toBeGreaterThanOrEqual(600);
  });

  it('fails a configuration error at once and keeps the job for inspection', async () => {
    const { engine, job } = await run(() => ({
      result: 'failed',
      error: 'x',
      cause: new SettingsError('TMS_OPERATORS', 'missing'),
    }));
    await eventually(async () => (await (await job()).getState()) === 'failed', 5000, 'the failed job');
    expect(engine.runs).toHaveLength(1);
    expect((await job()).failedReason).toContain('TMS_OPERATORS');
  });

  it('retries a transient failure with back-off until it succeeds', async () => {
    const { engine, job } = await run((entry) =>
      engine.runs.indexOf(entry) < 2
        ? { result: 'failed', error: 'x', cause: new HttpStatusError('boom', { status: 503 }) }
        : {},
    );
    await eventually(async () => (await (await job()).getState()) === 'completed', 5000, 'the completed job');
    expect(engine.runs).toHaveLength(3);
    expect((await job()).attemptsMade).toBe(3);
  });

  it('completes without retry when another run moved the state', async () => {
    const conflict = new StateConflictError('invoices', '', 3, 4);
    const { engine, job } = await run(() => ({
      result: 'failed',
      error: describeError(conflict),
      cause: conflict,
    }));
    await eventually(async () => (await (await job()).getState()) === 'completed', 5000, 'the completed job');
    expect(engine.runs).toHaveLength(1);
  });

  it('hands a job stopped by the shutdown over to the next worker, counting no attempt', async () => {
    const { engine, job } = await run(
      (entry) =>
        new Promise((resolve) => {
          if (entry.options.signal?.aborted) resolve({ result: 'interrupted', error: 'stopped' });
          entry.options.signal?.addEventListener('abort', () =>
            resolve({ result: 'interrupted', error: 'stopped' }),
          );
        }),
    );
    // The job turns active a moment before the processor calls the engine: wait for the engine's run.
    await eventually(async () => engine.runs.length === 1, 5000, 'the running job');
    expect(await worker!.stop(5000)).toBe(true);
    worker = undefined;
    expect(await (await job()).getState()).toBe('delayed');
    expect((await job()).attemptsMade).toBe(0);
    expect(engine.runs).toHaveLength(1);
  });
});
