import type { KyselyPlugin, PluginTransformQueryArgs } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { dueOutboxes } from '../../src/write-back/due-outboxes.js';
import { dialects } from '../store/store-fixture.js';

// A worker of many connections asks their outboxes whether a delivery pass has work every
// COMMANDS_EVERY_MS: the outboxes of one PostgreSQL database, a schema each, in one statement.

const postgres = dialects.find((dialect) => dialect.name === 'postgres')!.fixture();
const sqlite = dialects.find((dialect) => dialect.name === 'sqlite')!.fixture();
const stores: Store[] = [];
let statements = 0;
// Once per statement executed (a query's subqueries are transformed, its result is not).
const counting: KyselyPlugin = {
  transformQuery: ({ node }: PluginTransformQueryArgs) => node,
  transformResult: async ({ result }) => {
    statements++;
    return result;
  },
};

beforeAll(async () => {
  const database = await postgres.freshUrl();
  for (const schema of ['tms_a', 'tms_b', 'tms_c'])
    stores.push(await openStore(database, { schema, poolSize: 2, plugins: [counting] }));
  stores.push(await openStore(await sqlite.freshUrl(), { plugins: [counting] }));
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await postgres.cleanup();
  await sqlite.cleanup();
});

describe('asking many outboxes whether a delivery pass has work', () => {
  it("answers each outbox's own work: one statement for the schemas of one database, one for the SQLite file", async () => {
    const [a, b, c, file] = stores as [Store, Store, Store, Store];
    const payment = { amount: 1, date: '2026-11-20', reference: 'R' };
    await b.commands.add([{ kind: 'record_payment', target: '7', body: payment }]);
    await file.commands.add([{ kind: 'record_payment', target: '7', body: payment }]);
    const entries = [a, b, c, file].map((store, i) => ({ name: `s${i}`, outbox: store.commands }));
    const errors: unknown[] = [];
    statements = 0;
    const due = await dueOutboxes(entries, new Date(), (_entries, error) => errors.push(error));
    expect(statements).toBe(2);
    expect(errors).toEqual([]);
    expect(due.map((entry) => entry.name).sort()).toEqual(['s1', 's3']);
    await c.commands.add([{ kind: 'record_payment', target: '8', body: payment }]);
    const again = await dueOutboxes(entries.slice(0, 3), new Date(), () => undefined);
    expect(again.map((entry) => entry.name).sort()).toEqual(['s1', 's2']);
  });
});
