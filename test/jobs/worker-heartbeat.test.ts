import { afterEach, describe, expect, it } from 'vitest';
import { tickEveryMs } from '../../jobs/job-schedulers.js';
import { heartbeatKey, readHeartbeats } from '../../jobs/worker-heartbeat.js';
import { formatQueueStatus, readQueueStatus } from '../../src/cli/queue-status.js';
import { fakeEngine } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, startFixtureWorker } from './support/queue-fixture.js';

let fixture: QueueFixture;
afterEach(() => fixture?.cleanup());

describe('worker heartbeats', () => {
  it('a running worker is alive; one that stopped is not, and says when it stopped', async () => {
    fixture = queueFixture();
    const worker = await startFixtureWorker(fixture, fakeEngine(), { heartbeatMs: 100 });
    const [running] = await readHeartbeats(fixture.redis, fixture.settings.worker);
    expect(running).toMatchObject({ alive: true, pid: process.pid, stoppedAt: null });
    const first = running!.lastBeatAt.getTime();
    await eventually(
      async () =>
        (await readHeartbeats(fixture.redis, fixture.settings.worker))[0]!.lastBeatAt.getTime() > first,
      2000,
      'a second beat',
    );
    await worker.stop(5000);
    const [stopped] = await readHeartbeats(fixture.redis, fixture.settings.worker);
    expect(stopped).toMatchObject({ id: running!.id, alive: false });
    expect(stopped!.stoppedAt).toBeInstanceOf(Date);
  });

  it('a worker whose beats stopped coming is not alive, and status says that no worker runs the schedules', async () => {
    fixture = queueFixture();
    const [seconds] = await fixture.redis.time();
    const longAgo = Number(seconds) * 1000 - 120_000;
    await fixture.redis.hset(
      heartbeatKey(fixture.settings.worker),
      'gone-host:4242',
      JSON.stringify({
        host: 'gone-host',
        pid: 4242,
        startedAt: longAgo - 5000,
        intervalMs: 10_000,
        beatAt: longAgo,
      }),
    );
    const [gone] = await readHeartbeats(fixture.redis, fixture.settings.worker);
    expect(gone).toMatchObject({ id: 'gone-host:4242', alive: false, stoppedAt: null });
    await fixture.queue.upsertJobScheduler('sync:clients:', { every: tickEveryMs(60_000) }, { name: 'tick' });
    const now = new Date(Date.now() + 3600_000);
    const text = formatQueueStatus(await readQueueStatus(fixture.settings), now);
    expect(text).toMatch(/workers: NONE ALIVE; the last, gone-host:4242, went silent 1h( \d+m)? ago/);
    expect(text).toMatch(/sync:clients: +every 60s +next \S+ \(overdue: no worker runs\)/);
  });
});
