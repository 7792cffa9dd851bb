import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { eventually, type QueueFixture, queueFixture } from '../jobs/support/queue-fixture.js';
import { type CliProcess, spawnWorker, writeWorkerConfig } from '../jobs/support/worker-process.js';

let sim: SimHandle;
let fixture: QueueFixture;
let dir: string;
let store: Store;
let worker: CliProcess & { opsUrl: string };

beforeEach(async () => {
  sim = await startSim({ invoices: 60, clients: 10, operators: 1, seed: 3, faults: { lostResponse: 0.3 } });
  dir = mkdtempSync(join(tmpdir(), 'tms-commands-'));
  fixture = queueFixture();
  const env = {
    TMS_BASE_URL: sim.url,
    TMS_API_TOKEN: 'dev-api-token',
    STORE_URL: `sqlite:${join(dir, 'store.sqlite')}`,
    REDIS_URL: fixture.settings.redisUrl,
    QUEUE_PREFIX: fixture.prefix,
    TMS_SYNC_CONFIG: writeWorkerConfig(dir, 100),
    COMMANDS_EVERY_MS: '200',
    COMMANDS_RETRY_MS: '20',
  };
  store = await openStore(env.STORE_URL);
  worker = await spawnWorker(env);
});

afterEach(async () => {
  if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await worker.exited;
  await store.close();
  await fixture.cleanup();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the worker delivers write-back commands', () => {
  it('drains the outbox on its schedule, each payment once although a third of the answers are lost, then syncs what changed', async () => {
    const admin = createSimAdminClient({ url: sim.url });
    const invoices = (await admin.truth('invoices')).invoices!['']!.records as Array<{
      id: string;
      status: string;
    }>;
    const finalized = invoices.filter((invoice) => invoice.status === 'finalized').slice(0, 3);
    const references = finalized.flatMap((invoice) => [`${invoice.id}-A`, `${invoice.id}-B`]);
    await store.commands.add(
      references.map((reference) => ({
        kind: 'record_payment',
        target: reference.slice(0, -2),
        body: { amount: 40, date: '2026-11-20', reference },
      })),
    );
    const done = await eventually(
      async () => {
        const commands = await store.commands.list();
        return commands.every((command) => command.status === 'done') && commands;
      },
      20_000,
      'every command done',
    );
    const truth = await admin.truth('invoice_payments');
    for (const reference of references) {
      const matching = Object.values(truth.invoice_payments!)
        .flatMap((scope) => scope.records as Array<{ id: string; reference: string }>)
        .filter((payment) => payment.reference === reference);
      expect(matching, reference).toHaveLength(1);
      expect(
        done.find((command) => (command.body as { reference: string }).reference === reference)?.createdId,
      ).toBe(matching[0]!.id);
    }
    // Asked for with trigger `command`; folded into a scheduled run that was waiting, it keeps that
    // one's trigger: a run of each changed stream that started once the commands were done.
    const doneAt = Date.now() - 1000;
    const runs = await eventually(
      async () => {
        const later = (await store.listRuns({ limit: 100 })).filter(
          (run) => run.result === 'succeeded' && run.startedAt.getTime() >= doneAt,
        );
        const streams = new Set(later.map((run) => run.stream));
        return streams.has('invoices') && streams.has('invoice_payments') && streams;
      },
      20_000,
      'runs of the changed streams',
    );
    expect([...runs]).toEqual(expect.arrayContaining(['invoice_payments', 'invoices']));
    const stored = await store.readRows('invoice_payments');
    for (const reference of references)
      expect(
        stored.filter((row) => (row.data as { reference: string }).reference === reference),
      ).toHaveLength(1);
    const metrics = await (await request(`${worker.opsUrl}/metrics`)).body.text();
    expect(metrics).toContain('tms_sync_commands{status="done",kind="record_payment"} 6');
  }, 60_000);
});
