import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, Planning, Questionnaire, Task } from '../../src/sim/records/index.js';
import type { StreamTruth } from '../../src/sim/stream-truth.js';
import { type DriverTestSim, seg, startDriverTestSim } from './driver-test-sim.js';

const op = 'operatorId=1001';
let sim: DriverTestSim;
let truth: StreamTruth;
const records = <T = unknown>(stream: string, scope = '1001') => truth[stream]![scope]!.records as T[];
const tasks = () => records<Task>('tasks');

beforeAll(async () => {
  sim = await startDriverTestSim({ variant: { idStyle: 'unsafe' } });
  truth = await sim.truth();
});
afterAll(() => sim?.close());

describe('Driver API listings', () => {
  it.each([
    ['/driver-api/rides/', 'rides', '1001'],
    ['/driver-api/tasks/', 'tasks', '1001'],
    ['/driver-api/settings/', 'settings', '1001'],
    ['/driver-api/settings/color-profile', 'color_profiles', '1001'],
    ['/driver-api/planning/', 'planning', '1001'],
    ['/driver-api/vehicles/', 'vehicles', ''],
    ['/driver-api/trailers/', 'trailers', ''],
    ['/driver-api/settings/version', 'tms_version', ''],
    ['/driver-api/contacts', 'driver_contacts', ''],
    ['/driver-api/trace-types', 'trace_types', ''],
    ['/driver-api/packaging', 'packaging', ''],
    ['/driver-api/completion-statuses', 'completion_statuses', ''],
    ['/driver-api/activities/', 'activities', ''],
    ['/driver-api/chat/contacts', 'chat_contacts', ''],
    ['/driver-api/questionnaires/?latest=true', 'questionnaires', ''],
  ])('GET %s answers the list envelope with the records of the truth', async (path, stream, scope) => {
    const separator = path.includes('?') ? '&' : '?';
    const answer = await sim.call('GET', scope ? `${path}${separator}${op}` : path);
    expect(answer.status).toBe(200);
    const items = records(stream, scope);
    expect(answer.json).toEqual({ data: { code: 200, items, itemCount: items.length } });
  });

  it('answers the TMS version 2.0.70 as a list of one', async () => {
    expect(await sim.items('/driver-api/settings/version')).toEqual([
      { version: '2.0.70', apiVersion: '2.0.70' },
    ]);
  });

  it('lists only the mobile-enabled activities', async () => {
    const activities = await sim.items<{ mobileEnabled: boolean }>('/driver-api/activities/');
    expect(activities.length).toBeGreaterThan(0);
    expect(activities.every((activity) => activity.mobileEnabled)).toBe(true);
  });

  it('lists every questionnaire version with latest=false and the newest of each with latest=true', async () => {
    const all: Questionnaire[] = await sim.items('/driver-api/questionnaires/?latest=false');
    const latest: Questionnaire[] = await sim.items('/driver-api/questionnaires/?latest=true');
    expect(all.length).toBeGreaterThan(latest.length);
    for (const questionnaire of latest) {
      const versions = all.filter((candidate) => candidate.id === questionnaire.id).map((q) => q.version);
      expect(questionnaire.version).toBe(Math.max(...versions));
    }
    for (const latestValue of ['', 'yes']) {
      expect((await sim.call('GET', `/driver-api/questionnaires/?latest=${latestValue}`)).status).toBe(400);
    }
    expect((await sim.call('GET', '/driver-api/questionnaires/')).status).toBe(400);
  });

  it('reads a logo by id as a list of one, and 404 for an unknown logo', async () => {
    expect(await sim.items('/driver-api/logo/2')).toMatchObject([{ id: 2, mediaType: 'image/png' }]);
    expect((await sim.call('GET', '/driver-api/logo/99')).status).toBe(404);
  });

  it('reads the dossier folder of an order whose id needs percent-encoding, and 404 for an unknown order', async () => {
    const folder = records<{ orderId: string }>('dossier_folders')[0]!;
    expect(folder.orderId).toMatch(/[/ #?%]/);
    expect(await sim.items(`/driver-api/dossier/orders/${seg(folder.orderId)}`)).toEqual([folder]);
    expect((await sim.call('GET', '/driver-api/dossier/orders/no-such-order')).status).toBe(404);
  });
});

describe('ids filters', () => {
  it('answers only the tasks named in ids, unknown ids simply absent', async () => {
    const wanted = [tasks()[3]!.id, tasks()[0]!.id];
    const ids = seg([...wanted, 'no-such-task'].join(','));
    const items: Task[] = await sim.items(`/driver-api/tasks/?${op}&ids=${ids}`);
    expect(items.map((task) => task.id).sort()).toEqual([...wanted].sort());
  });

  it.each([
    ['/driver-api/goods/', 'goods', (task: Task) => task.goods.map((good) => good.id)],
    ['/driver-api/tasks/packaging-balances', 'task_packaging_balances', (task: Task) => [task.id]],
    ['/driver-api/clients/packaging-balances', 'client_packaging_balances', (task: Task) => [task.client.id]],
  ])(
    'GET %s answers the records of the ids the tasks reference and 400 without ids',
    async (path, stream, idsOf) => {
      const ids = [...new Set(tasks().flatMap(idsOf))];
      expect(await sim.items(`${path}?${op}&ids=${seg(ids.join(','))}`)).toEqual(records(stream));
      const one = await sim.items(`${path}?${op}&ids=${seg(`${ids[0]},unknown`)}`);
      expect(one).toHaveLength(1);
      expect((await sim.call('GET', `${path}?${op}`)).status).toBe(400);
      expect((await sim.call('GET', `${path}?${op}&ids=`)).status).toBe(400);
    },
  );

  it('keeps goods of another operator out of an operator answer', async () => {
    const otherGood = records<Task>('tasks', '1002').find((task) => task.goods.length > 0)!.goods[0]!.id;
    expect(await sim.items(`/driver-api/goods/?${op}&ids=${seg(otherGood)}`)).toEqual([]);
  });
});

describe('planning', () => {
  it('answers the same planning on the legacy data path, marked by x-data-path: legacy', async () => {
    const current = await sim.call('GET', `/driver-api/planning/?${op}`);
    const legacy = await sim.call('GET', `/driver-api/planning/?${op}&use=legacy`);
    expect(legacy.json).toEqual(current.json);
    expect(legacy.headers['x-data-path']).toBe('legacy');
    expect(current.headers['x-data-path']).toBeUndefined();
  });

  it('answers 400 for any other value of use', async () => {
    expect((await sim.call('GET', `/driver-api/planning/?${op}&use=current`)).status).toBe(400);
  });

  it('holds the open tasks, the rides not ended and the goods of those tasks', async () => {
    const [planning] = await sim.items<Planning>(`/driver-api/planning/?${op}`);
    expect(planning!.tasks.length).toBeGreaterThan(0);
    expect(planning!.tasks.every((task) => task.status === 'notStarted' || task.status === 'started')).toBe(
      true,
    );
    expect(planning!.rides.every((ride) => ride.status !== 'ended')).toBe(true);
    const goodIds = planning!.tasks.flatMap((task) => task.goods.map((good) => good.id));
    expect(planning!.goods.map((good) => good.id).sort()).toEqual(goodIds.sort());
  });
});

describe('chat window', () => {
  const window = (from: string, to: string) =>
    `/driver-api/chat/messages?${op}&fromMoment=${seg(from)}&toMoment=${seg(to)}`;

  it('selects messages with sentAt in [fromMoment, toMoment)', async () => {
    const message = records<ChatMessage>('chat_messages')[5]!;
    const sent = Date.parse(message.sentAt);
    const iso = (ms: number) => new Date(ms).toISOString();
    const inside: ChatMessage[] = await sim.items(window(message.sentAt, iso(sent + 1)));
    expect(inside.map((m) => m.id)).toContain(message.id);
    const before: ChatMessage[] = await sim.items(window(iso(sent - 3_600_000), message.sentAt));
    expect(before.map((m) => m.id)).not.toContain(message.id);
    expect(before.every((m) => Date.parse(m.sentAt) < sent)).toBe(true);
  });

  it('answers every message of the operator, oldest first, for a window around all of them', async () => {
    expect(await sim.items(window('2000-01-01', '2100-01-01T00:00:00+01:00'))).toEqual(
      records('chat_messages'),
    );
  });

  it.each([
    ['without fromMoment', `/driver-api/chat/messages?${op}&toMoment=2100-01-01T00:00:00Z`],
    ['without toMoment', `/driver-api/chat/messages?${op}&fromMoment=2000-01-01T00:00:00Z`],
    ['for a moment that is not ISO 8601', window('yesterday', '2100-01-01T00:00:00Z')],
    ['for a moment without a zone', window('2025-03-01T10:00:00', '2100-01-01T00:00:00Z')],
    ['when fromMoment is after toMoment', window('2025-03-02T00:00:00Z', '2025-03-01T00:00:00Z')],
  ])('answers 400 %s', async (_, path) => {
    expect((await sim.call('GET', path)).status).toBe(400);
  });
});

describe('operatorId rules', () => {
  it('answers 400 to an API token without operatorId on an operation that takes one', async () => {
    for (const path of ['/driver-api/tasks/', '/driver-api/rides/', '/driver-api/settings/']) {
      expect((await sim.call('GET', path)).status).toBe(400);
    }
  });

  it('lets a driver token with an operator claim read without operatorId', async () => {
    const token = await sim.driverToken('1002');
    expect(await sim.items('/driver-api/tasks/', { token })).toEqual(records('tasks', '1002'));
  });

  it('answers operations without operatorId to a driver token without operator claim', async () => {
    const token = await sim.driverToken();
    expect(await sim.items('/driver-api/vehicles/', { token })).toEqual(records('vehicles', ''));
    expect((await sim.call('GET', '/driver-api/tasks/', { token })).status).toBe(400);
  });

  it('answers 404 for an operator without data and 401 without a token', async () => {
    expect((await sim.call('GET', '/driver-api/tasks/?operatorId=999')).status).toBe(404);
    expect((await sim.call('GET', `/driver-api/tasks/?${op}`, { token: null })).status).toBe(401);
  });
});

describe('truth', () => {
  it('equals what the Driver API GETs return for every Driver API stream and scope', async () => {
    for (const operatorId of ['1001', '1002']) {
      const at = (stream: string) => truth[stream]![operatorId]!.records;
      const own = `operatorId=${operatorId}`;
      const ownTasks = at('tasks') as Task[];
      const ids = (values: string[]) => seg([...new Set(values)].join(','));
      expect(await sim.items(`/driver-api/tasks/?${own}`)).toEqual(ownTasks);
      expect(await sim.items(`/driver-api/rides/?${own}`)).toEqual(at('rides'));
      expect(await sim.items(`/driver-api/planning/?${own}`)).toEqual(at('planning'));
      const goodIds = ids(ownTasks.flatMap((task) => task.goods.map((good) => good.id)));
      expect(await sim.items(`/driver-api/goods/?${own}&ids=${goodIds}`)).toEqual(at('goods'));
      const taskIds = ids(ownTasks.map((task) => task.id));
      expect(await sim.items(`/driver-api/tasks/packaging-balances?${own}&ids=${taskIds}`)).toEqual(
        at('task_packaging_balances'),
      );
      const clientIds = ids(ownTasks.map((task) => task.client.id));
      expect(await sim.items(`/driver-api/clients/packaging-balances?${own}&ids=${clientIds}`)).toEqual(
        at('client_packaging_balances'),
      );
      const chat = `/driver-api/chat/messages?${own}&fromMoment=2000-01-01&toMoment=2100-01-01`;
      expect(await sim.items(chat)).toEqual(at('chat_messages'));
      expect(await sim.items(`/driver-api/settings/?${own}`)).toEqual(at('settings'));
      expect(await sim.items(`/driver-api/settings/color-profile?${own}`)).toEqual(at('color_profiles'));
      const folders = [];
      for (const orderId of new Set(ownTasks.map((task) => task.order.id))) {
        folders.push(...(await sim.items(`/driver-api/dossier/orders/${seg(orderId)}`)));
      }
      expect(folders).toEqual(at('dossier_folders'));
    }
  });

  it('is the same for the same seed and differs for another seed', async () => {
    const same = await startDriverTestSim({ variant: { idStyle: 'unsafe' } });
    const other = await startDriverTestSim({ variant: { idStyle: 'unsafe' }, seed: 12 });
    try {
      const streams = [
        'tasks',
        'rides',
        'goods',
        'chat_messages',
        'dossier_folders',
        'vehicles',
        'questionnaires',
      ];
      const pick = (whole: StreamTruth) =>
        Object.fromEntries(streams.map((stream) => [stream, whole[stream]]));
      expect(pick(await same.truth())).toEqual(pick(truth));
      expect(pick(await other.truth()).tasks).not.toEqual(pick(truth).tasks);
    } finally {
      await same.close();
      await other.close();
    }
  });
});
