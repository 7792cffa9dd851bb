import { describe, expect, it } from 'vitest';
import { recordSchemas } from '../../src/sim/records/index.js';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import type { SimVariant } from '../../src/sim/sim-options.js';
import { startSim } from '../../src/sim/start-sim.js';
import type { StreamTruth } from '../../src/sim/stream-truth.js';
import { ownShape, schemaOf } from './own-shape.js';
import { readEveryStream, truthRecords } from './served-records.js';
import { call, login } from './sim-test-client.js';

type Json = Record<string, unknown>;
const size = { invoices: 40, clients: 10, operators: 1, seed: 5, now: () => Date.UTC(2025, 5, 1) };

async function truthOf(variant: Partial<SimVariant>): Promise<StreamTruth> {
  const sim = await startSim({ ...size, variant });
  try {
    return await createSimAdminClient({ url: sim.url }).truth();
  } finally {
    await sim.close();
  }
}

const records = (truth: StreamTruth, stream: string) =>
  Object.values(truth[stream] ?? {}).flatMap((scope) => scope.records as Json[]);

const taskStatuses = ['notStarted', 'started', 'completed', 'cancelled'];
const seeds = [1, 2, 3, 4];

describe('tms-sim record shapes', () => {
  it("serves tms-sim's own shapes by default, in every stream", async () => {
    const truth = await truthOf({});
    expect(Object.keys(truth).sort()).toEqual(Object.keys(schemaOf).sort());
    for (const stream of Object.keys(schemaOf)) {
      expect(records(truth, stream).length, stream).toBeGreaterThan(0);
      for (const record of records(truth, stream)) expect(ownShape(stream, record), stream).toBe(true);
    }
    expect(await truthOf({ recordShapes: 'default', recordShapesSeed: 9 })).toEqual(truth);
  });

  it('serves another TMS with alt: other names, flat totals, objects for strings, fields missing', async () => {
    const truth = await truthOf({ recordShapes: 'alt' });
    const invoices = records(truth, 'invoices');
    for (const invoice of invoices) {
      expect(invoice).toMatchObject({ note: expect.any(String), paid: { amount: expect.any(String) } });
      expect(invoice).not.toHaveProperty('notes');
      expect(invoice).not.toHaveProperty('totals');
    }
    const totalTypes = new Set(invoices.map((invoice) => typeof invoice.totalInclVat));
    expect([...totalTypes].sort()).toEqual(['number', 'string']);
    for (const client of records(truth, 'clients'))
      expect(client.address).toMatchObject({
        country: { code: expect.any(String), name: expect.any(String) },
      });
    for (const [stream, field] of [
      ['chat_messages', 'fromId'],
      ['chat_messages', 'sentAt'],
      ['activities', 'code'],
      ['completion_statuses', 'isSuccess'],
      ['rides', 'number'],
      ['rides', 'planned'],
      ['settings', 'distanceUnit'],
    ] as const) {
      for (const record of records(truth, stream)) expect(record, stream).not.toHaveProperty(field);
    }
    const planned = records(truth, 'planning')[0]!.tasks as Json[];
    for (const task of [...records(truth, 'tasks'), ...planned])
      expect((task.address as Json).location).not.toHaveProperty('number');
    const tasks = records(truth, 'tasks');
    expect(tasks.some((task) => !('planned' in task))).toBe(true);
    expect(tasks.some((task) => task.status === 'onHold')).toBe(true);
    expect(records(truth, 'client_addressbook')).toEqual(records(truth, 'addressbook'));
  });

  it('chooses random shapes from a seed: the same seed, the same shapes; another seed, others', async () => {
    const one = await truthOf({ recordShapes: 'random', recordShapesSeed: 1 });
    expect(await truthOf({ recordShapes: 'random', recordShapesSeed: 1 })).toEqual(one);
    const two = await truthOf({ recordShapes: 'random', recordShapesSeed: 2 });
    const plain = await truthOf({});
    const keysOf = (truth: StreamTruth, stream: string) =>
      Object.keys(records(truth, stream)[0]!).sort().join();
    for (const stream of ['invoices', 'clients', 'tasks', 'settings', 'chat_messages']) {
      expect(keysOf(one, stream), stream).not.toBe(keysOf(two, stream));
      expect(keysOf(one, stream), stream).not.toBe(keysOf(plain, stream));
    }
  });

  it('keeps in random shapes every key the engine relies on and the fields other streams are fetched by', async () => {
    const plain = await truthOf({});
    const dropped = new Set<string>();
    for (const seed of seeds) {
      const truth = await truthOf({ recordShapes: 'random', recordShapesSeed: seed });
      const same = (stream: string, pick: (record: Json) => unknown) =>
        expect(records(truth, stream).map(pick), `${stream} seed ${seed}`).toEqual(
          records(plain, stream).map(pick),
        );
      for (const stream of ['invoices', 'invoice_payments', 'clients', 'client_contacts', 'addressbook'])
        same(stream, (record) => [record.id, record.sequence]);
      for (const stream of ['invoices', 'clients']) same(stream, (record) => record.modifiedAt);
      for (const stream of ['tasks', 'rides', 'goods', 'vehicles', 'trailers', 'trace_types', 'packaging'])
        same(stream, (record) => record.id);
      for (const stream of ['completion_statuses', 'activities', 'chat_messages', 'questionnaires'])
        same(stream, (record) => record.id);
      same('client_packaging_balances', (record) => record.clientId);
      same('tasks', (task) => [task.goods, (task.client as Json).id, (task.order as Json).id]);
      for (const [stream, key] of [
        ['invoice_lines', 'id'],
        ['client_addressbook', 'id'],
        ['task_packaging_balances', 'taskId'],
        ['driver_contacts', 'id'],
        ['chat_contacts', 'id'],
        ['color_profiles', 'name'],
      ] as const) {
        const served = records(truth, stream);
        expect(served.length).toBe(records(plain, stream).length);
        served.forEach((record, index) => {
          if (key in record) expect(record[key]).toBe(records(plain, stream)[index]![key]);
          else dropped.add(stream);
        });
      }
    }
    expect([...dropped].sort()).toEqual([
      'chat_contacts',
      'client_addressbook',
      'color_profiles',
      'driver_contacts',
      'invoice_lines',
      'task_packaging_balances',
    ]);
  });

  it('keeps in random shapes the names of the fields the spec shows, with values outside their enums now and then', async () => {
    const shownTaskFields = Object.keys(recordSchemas.task.properties).filter((field) => field !== 'goods');
    const statuses = new Set<unknown>();
    for (const seed of seeds) {
      const tasks = records(await truthOf({ recordShapes: 'random', recordShapesSeed: seed }), 'tasks');
      for (const field of shownTaskFields)
        expect(
          tasks.some((task) => field in task),
          `${field} seed ${seed}`,
        ).toBe(true);
      for (const task of tasks) statuses.add(task.status);
    }
    expect([...statuses].some((status) => typeof status === 'string' && !taskStatuses.includes(status))).toBe(
      true,
    );
  });

  for (const variant of [
    {},
    { recordShapes: 'alt' },
    { recordShapes: 'random', recordShapesSeed: 3 },
    { recordShapes: 'random', recordShapesSeed: 7, sequenceField: 'rev', idStyle: 'unsafe' },
  ] as const) {
    it(`answers in the truth exactly what every stream serves, before and after changes (${JSON.stringify(variant)})`, async () => {
      const sim = await startSim({ ...size, variant });
      const admin = createSimAdminClient({ url: sim.url });
      try {
        expect(await readEveryStream(sim)).toEqual(truthRecords(await admin.truth()));
        await admin.applyChanges(40, 4);
        expect(await readEveryStream(sim)).toEqual(truthRecords(await admin.truth()));
      } finally {
        await sim.close();
      }
    }, 30_000);
  }

  it('lays the raw fields of an override over the record as its shapes serve it', async () => {
    const sim = await startSim({ ...size, variant: { recordShapes: 'random', recordShapesSeed: 3 } });
    const admin = createSimAdminClient({ url: sim.url });
    try {
      const token = await login(sim);
      const first = async () =>
        (await call(sim, '/invoice/invoices/?limit=1', { token })).json.data.items[0] as Json;
      const { sequence: _before, modifiedAt: _at, ...before } = await first();
      const fields = { totals: 'not an object', notes: 12 };
      await admin.setOverride('invoices', String(before.id), fields);
      const { sequence: _after, modifiedAt: _now, ...after } = await first();
      expect(after).toEqual({ ...before, ...fields });
      expect(await readEveryStream(sim)).toEqual(truthRecords(await admin.truth()));
    } finally {
      await sim.close();
    }
  });
});
