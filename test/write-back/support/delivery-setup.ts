import { afterEach, beforeEach } from 'vitest';
import { type CommandSettings, defaultCommandSettings } from '../../../config/command-settings.js';
import { createTmsClient, type TmsClient } from '../../../src/client/index.js';
import { createLogger } from '../../../src/logger.js';
import { createSimAdminClient, type SimAdminClient } from '../../../src/sim/sim-admin-client.js';
import type { FaultRates } from '../../../src/sim/sim-options.js';
import { type SimHandle, type StartSimOptions, startSim } from '../../../src/sim/start-sim.js';
import type { Command, CommandInput } from '../../../src/store/outbox/command.js';
import type { Store } from '../../../src/store/store.js';
import { checkCommand } from '../../../src/write-back/admit-command.js';
import type { DeliveryContext } from '../../../src/write-back/deliver-command.js';
import { type DrainReport, drainOutbox } from '../../../src/write-back/drain-outbox.js';
import type { StoreFixture } from '../../store/store-fixture.js';

/** Short waits so a test sees many attempts in a second. */
export const quickCommands: CommandSettings = {
  ...defaultCommandSettings,
  leaseMs: 2000,
  retryMs: 1,
  maxAttempts: 20,
};

/** The client's retries kept short: a request gives up after a second, never waits a Retry-After long. */
export const quickClient = {
  retry: { minDelayMs: 2, maxDelayMs: 20, maxTotalMs: 1500 },
  timeouts: { connectMs: 1000, headersMs: 2000, bodyMs: 2000 },
  patienceMs: 30_000,
};

export interface DeliverySetup {
  readonly sim: SimHandle;
  readonly admin: SimAdminClient;
  readonly client: TmsClient;
  readonly store: Store;
  /** Adds commands as the CLI does (each must pass the check). */
  add(...commands: CommandInput[]): Promise<number[]>;
  /** One pass of a deliverer named `owner` over the outbox (`once`: no retry within the pass). */
  drain(options?: {
    owner?: string;
    settings?: Partial<CommandSettings>;
    once?: boolean;
  }): Promise<DrainReport>;
  /** Loses the answer of every write during one pass without retries, then the faults stop and the clock moves on. */
  loseAnswers(): Promise<void>;
  /** Moves the deliverers' clock on: retry waits and leases pass. */
  advance(ms: number): void;
  /** Passes until nothing is pending or in flight (at most `passes`). */
  drainAll(options?: { owner?: string; passes?: number }): Promise<void>;
  command(id: number): Promise<Command>;
  faults(rates: Partial<FaultRates> | 'none'): Promise<void>;
  /** Invoices of the simulator's truth in a state, by id. */
  invoicesIn(status: string): Promise<string[]>;
  /** The records of a child stream's scope in the simulator's truth. */
  truthOf(
    stream: 'invoice_payments' | 'client_contacts',
    scope: string,
  ): Promise<Array<Record<string, unknown>>>;
  clients(): Promise<Array<Record<string, unknown>>>;
}

/** A simulator, a client with short retries and the test's store, per test. */
export function useDeliverySetup(
  fixture: StoreFixture,
  simOptions: StartSimOptions = {},
): () => DeliverySetup {
  let setup: DeliverySetup | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const store = await fixture.open();
    const sim = await startSim({ invoices: 40, clients: 10, operators: 1, ...simOptions });
    const client = createTmsClient({ baseUrl: sim.url, apiToken: sim.options.apiToken, ...quickClient });
    // Logged in before any fault is set: a lost login answer only costs a retry, but a test that
    // loses every write would lose the login too.
    for await (const _page of client.listClients({ limit: 1 })) break;
    setup = deliverySetup(store, sim, client);
    close = async () => {
      await client.close();
      await sim.close();
      await store.close();
    };
  });
  afterEach(() => close?.());
  return () => setup!;
}

function deliverySetup(store: Store, sim: SimHandle, client: TmsClient): DeliverySetup {
  const admin = createSimAdminClient({ url: sim.url });
  const logger = createLogger({ level: (process.env.TEST_LOG_LEVEL as 'info') ?? 'silent' });
  const context = (
    options: { owner?: string; settings?: Partial<CommandSettings>; once?: boolean } = {},
  ): DeliveryContext => ({
    client,
    outbox: store.commands,
    owner: options.owner ?? 'test',
    settings: { ...quickCommands, ...(options.once ? { retryMs: 600_000 } : {}), ...options.settings },
    logger,
    now: () => new Date(Date.now() + clockOffset),
  });
  let clockOffset = 0;
  const setup: DeliverySetup = {
    sim,
    admin,
    client,
    store,
    async add(...commands) {
      for (const command of commands) {
        const verdict = checkCommand(command, 0);
        if (!verdict.ok) throw new Error(verdict.problem);
      }
      return store.commands.add(commands);
    },
    drain: (options) => drainOutbox(context(options)),
    advance(ms) {
      clockOffset += ms;
    },
    async loseAnswers() {
      await setup.faults({ lostResponse: 1 });
      await setup.drain({ once: true });
      await setup.faults('none');
      setup.advance(3_600_000);
    },
    async drainAll(options = {}) {
      for (let pass = 0; pass < (options.passes ?? 200); pass++) {
        await drainOutbox(context(options));
        const open = (await store.commands.counts()).filter((count) =>
          ['pending', 'in_flight'].includes(count.status),
        );
        if (open.length === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error('commands still pending after every pass');
    },
    async command(id) {
      const [command] = await store.commands.list({ ids: [id] });
      return command!;
    },
    async faults(rates) {
      await admin.setFaults(rates === 'none' ? 'none' : { retryAfterSeconds: 0, ...rates });
    },
    async invoicesIn(status) {
      const records = (await admin.truth('invoices')).invoices!['']!.records as Array<
        Record<string, unknown>
      >;
      return records.filter((record) => record.status === status).map((record) => String(record.id));
    },
    async truthOf(stream, scope) {
      return ((await admin.truth(stream))[stream]?.[scope]?.records ?? []) as Array<Record<string, unknown>>;
    },
    async clients() {
      return (await admin.truth('clients')).clients!['']!.records as Array<Record<string, unknown>>;
    },
  };
  return setup;
}
