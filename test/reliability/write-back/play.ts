import { createTmsClient } from '../../../src/client/index.js';
import { createLogger } from '../../../src/logger.js';
import { createSimAdminClient, type SimAdminClient } from '../../../src/sim/sim-admin-client.js';
import type { SimVariant } from '../../../src/sim/sim-options.js';
import { type SimHandle, startSim } from '../../../src/sim/start-sim.js';
import type { Command } from '../../../src/store/outbox/command.js';
import type { Store } from '../../../src/store/store.js';
import { pushOutbox } from '../../../src/write-back/push-outbox.js';
import type { StoreFixture } from '../../store/store-fixture.js';
import { quickClient, quickCommands } from '../../write-back/support/delivery-setup.js';
import { checkUpstream } from './check-upstream.js';
import { type PlannedCommand, planCommands, type SimRecords, type WriteBackCase } from './commands.js';

/** How the commands are delivered under faults, before the faults stop and a final delivery ends it. */
export type Deliver = (context: { sim: SimHandle; store: Store; storeUrl: string }) => Promise<void>;

/** What a case did, for the soak's figures. */
export interface CaseReport {
  readonly problems: string[];
  readonly commands: readonly Command[];
  /** Faults the simulator injected, by kind. */
  readonly injected: Readonly<Record<string, number>>;
}

/**
 * Plays one case: a fresh simulator of the variant, the case's commands inserted in order (some
 * with plain SQL), delivered by `deliver` under the case's faults, then the faults stop and two
 * deliverers finish in-process. Answers the invariants' problems (check-upstream.ts).
 */
export async function playWriteBack(
  fixture: StoreFixture,
  store: Store,
  testCase: WriteBackCase,
  variant: Partial<SimVariant>,
  deliver: Deliver,
): Promise<CaseReport> {
  const sim = await startSim({ invoices: 30, clients: 8, operators: 1, seed: testCase.seed, variant });
  const admin = createSimAdminClient({ url: sim.url });
  try {
    const storeUrl = await fixture.url();
    for (const command of planCommands(testCase.commands, await simRecords(admin)))
      await insert(fixture, storeUrl, store, command);
    await admin.setFaults(testCase.faults);
    await deliver({ sim, store, storeUrl });
    await admin.setFaults('none');
    await deliverInProcess(2)({ sim, store, storeUrl });
    const commands = await store.commands.list({ limit: 10_000 });
    const strict = variant.recordShapes === undefined || variant.recordShapes === 'default';
    const problems = checkUpstream(commands, await admin.truth(), strict);
    return { problems, commands, injected: await admin.injectedFaults() };
  } finally {
    await sim.close();
  }
}

/** `deliverers` in-process deliverers at once (each its own client, as separate processes would be), until nothing is open. */
export function deliverInProcess(deliverers: number): Deliver {
  return async ({ sim, store }) => {
    await Promise.all(
      Array.from({ length: deliverers }, async (_, index) => {
        const client = createTmsClient({ baseUrl: sim.url, apiToken: sim.options.apiToken, ...quickClient });
        try {
          await pushOutbox({
            client,
            outbox: store.commands,
            owner: `deliverer-${index}`,
            settings: { ...quickCommands, concurrency: 3, everyMs: 20, maxAttempts: 60 },
            logger: createLogger({ level: 'silent' }),
          });
        } finally {
          await client.close();
        }
      }),
    );
  };
}

async function simRecords(admin: SimAdminClient): Promise<SimRecords> {
  const truth = await admin.truth();
  const ids = (stream: string) =>
    ((truth[stream]?.['']?.records ?? []) as Array<{ id: string }>).map((row) => row.id);
  const payments = new Map<string, string[]>();
  for (const [invoice, scope] of Object.entries(truth.invoice_payments ?? {}))
    payments.set(
      invoice,
      (scope.records as Array<{ id: string }>).map((row) => row.id),
    );
  return { invoices: ids('invoices').slice(0, 10), clients: ids('clients').slice(0, 5), payments };
}

/** `command add`, or the plain SQL insert a user's system would do in its own transaction. */
async function insert(
  fixture: StoreFixture,
  url: string,
  store: Store,
  command: PlannedCommand,
): Promise<void> {
  if (!command.sql) {
    await store.commands.add([command.input]);
    return;
  }
  const { kind, target, body, match } = command.input;
  const values = [
    kind,
    target ?? null,
    body === undefined ? null : JSON.stringify(body),
    match?.join(',') ?? null,
  ];
  const placeholders = fixture.dialect === 'postgres' ? '$1, $2, $3, $4' : '?, ?, ?, ?';
  await fixture.query(
    url,
    `insert into tms_commands (kind, target, body, match_fields) values (${placeholders})`,
    values,
  );
}
