// Over 300 lines on purpose: every write route of the simulated Driver API (tasks, rides, goods
// and scan traces, chat, writes without a listing) against the one simulator it starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ChatMessage,
  Good,
  Planning,
  ProcessedMutation,
  Questionnaire,
  Ride,
  Task,
} from '../../src/sim/records/index.js';
import type { StreamTruth } from '../../src/sim/stream-truth.js';
import { type DriverTestSim, envelopeOf, seg, startDriverTestSim, startOfTest } from './driver-test-sim.js';

const op = 'operatorId=1001';
const at = '2025-03-12T10:00:00Z';
let sim: DriverTestSim;
let truth: StreamTruth;
let counter = 0;
const mutationId = (name: string) => `${name}-${++counter}`;
const taskWith = (test: (task: Task) => boolean) => (truth.tasks!['1001']!.records as Task[]).find(test)!;
// The last not-started task: tests that change tasks take the first ones.
const untouchedTask = () =>
  (truth.tasks!['1001']!.records as Task[]).findLast((task) => task.status === 'notStarted')!;
const getTask = async (id: string) => (await sim.items<Task>(`/driver-api/tasks/?${op}&ids=${seg(id)}`))[0]!;
const getGood = async (id: string) => (await sim.items<Good>(`/driver-api/goods/?${op}&ids=${seg(id)}`))[0]!;
const write = (method: string, path: string, body: unknown) =>
  sim.call(method, `${path}${path.includes('?') ? '&' : '?'}${op}`, { body });

async function processed(...ids: string[]): Promise<Record<string, string>> {
  const answer = await sim.call('POST', '/driver-api/get-processed-mutations/', {
    body: { mutationIds: ids },
  });
  expect(answer.status).toBe(200);
  return Object.fromEntries(
    envelopeOf<ProcessedMutation>(answer).items.map((item) => [item.mutationId, item.result]),
  );
}

beforeAll(async () => {
  sim = await startDriverTestSim({ variant: { idStyle: 'unsafe' } });
  truth = await sim.truth();
});
afterAll(() => sim?.close());

describe('PATCH /driver-api/tasks/{id}', () => {
  it('starts and completes a task, stamping completion.when, and reports the mutations as applied', async () => {
    const task = taskWith((candidate) => candidate.status === 'notStarted' && candidate.goods.length > 0);
    const [start, complete] = [mutationId('start'), mutationId('complete')];
    const started = await write('PATCH', `/driver-api/tasks/${seg(task.id)}`, {
      mutationId: start,
      status: 'started',
    });
    expect(started).toMatchObject({ status: 200, text: '' });
    sim.advance(60_000);
    await write('PATCH', `/driver-api/tasks/${seg(task.id)}`, { mutationId: complete, status: 'completed' });
    const after = await getTask(task.id);
    expect(after.status).toBe('completed');
    expect(after.completion.when).toEqual({
      start: new Date(startOfTest).toISOString(),
      end: new Date(startOfTest + 60_000).toISOString(),
    });
    expect(await processed(start, complete, 'never-sent')).toEqual({
      [start]: 'applied',
      [complete]: 'applied',
    });
  });

  it('merge-patches: the fields sent change, the others stay', async () => {
    const task = taskWith((candidate) => candidate.status === 'started');
    await write('PATCH', `/driver-api/tasks/${seg(task.id)}`, {
      referenceExternal: 'PO-NEW',
      completion: { comments: 'rang twice' },
    });
    const after = await getTask(task.id);
    expect(after).toEqual({
      ...task,
      referenceExternal: 'PO-NEW',
      completion: { ...task.completion, comments: 'rang twice' },
    });
  });

  it('answers 409 to an invalid transition and records the mutation as rejected', async () => {
    const closed = taskWith((candidate) => candidate.status === 'completed');
    const rejected = mutationId('reopen');
    const answer = await write('PATCH', `/driver-api/tasks/${seg(closed.id)}`, {
      mutationId: rejected,
      status: 'started',
    });
    expect(answer.status).toBe(409);
    const cancelled = taskWith((candidate) => candidate.status === 'cancelled');
    expect(
      (await write('PATCH', `/driver-api/tasks/${seg(cancelled.id)}`, { referenceExternal: 'x' })).status,
    ).toBe(409);
    expect(await processed(rejected)).toEqual({ [rejected]: 'rejected' });
  });

  it('accepts a repeated patch of a closed task that changes nothing', async () => {
    const closed = taskWith((candidate) => candidate.status === 'completed');
    expect(
      (await write('PATCH', `/driver-api/tasks/${seg(closed.id)}`, { status: 'completed' })).status,
    ).toBe(200);
  });

  it('answers 422 to an invalid body and 404 to an unknown task', async () => {
    const task = taskWith((candidate) => candidate.status === 'notStarted');
    expect((await write('PATCH', `/driver-api/tasks/${seg(task.id)}`, { status: 'done' })).status).toBe(422);
    expect((await write('PATCH', `/driver-api/tasks/${seg(task.id)}`, ['started'])).status).toBe(422);
    const unknownStatus = { completion: { completionStatusId: 999 } };
    expect((await write('PATCH', `/driver-api/tasks/${seg(task.id)}`, unknownStatus)).status).toBe(422);
    expect((await write('PATCH', '/driver-api/tasks/no-such-task', { status: 'started' })).status).toBe(404);
  });

  it('answers 400 to an API token without operatorId', async () => {
    const task = taskWith((candidate) => candidate.status === 'notStarted');
    const answer = await sim.call('PATCH', `/driver-api/tasks/${seg(task.id)}`, {
      body: { status: 'started' },
    });
    expect(answer.status).toBe(400);
  });
});

describe('PATCH /driver-api/rides/{id}', () => {
  it('starts a planned ride and ends it; repeating either with the same time is fine, another time is a 409', async () => {
    const ride = (truth.rides!['1001']!.records as Ride[]).find(
      (candidate) => candidate.status === 'planned',
    )!;
    const later = '2025-03-12T18:00:00Z';
    expect((await write('PATCH', `/driver-api/rides/${ride.id}`, { action: 'end', at })).status).toBe(409);
    expect((await write('PATCH', `/driver-api/rides/${ride.id}`, { action: 'start', at })).status).toBe(200);
    expect((await write('PATCH', `/driver-api/rides/${ride.id}`, { action: 'start', at })).status).toBe(200);
    expect((await write('PATCH', `/driver-api/rides/${ride.id}`, { action: 'end', at: later })).status).toBe(
      200,
    );
    const rides: Ride[] = await sim.items(`/driver-api/rides/?${op}`);
    expect(rides.find((candidate) => candidate.id === ride.id)).toMatchObject({
      status: 'ended',
      actual: { start: at, end: later },
    });
    expect((await write('PATCH', `/driver-api/rides/${ride.id}`, { action: 'end', at: later })).status).toBe(
      200,
    );
    expect((await write('PATCH', `/driver-api/rides/${ride.id}`, { action: 'end', at })).status).toBe(409);
    expect(
      (await write('PATCH', `/driver-api/rides/${ride.id}`, { action: 'start', at: later })).status,
    ).toBe(409);
  });

  it('answers 422 to an unknown action and 404 to an unknown ride', async () => {
    const ride = (truth.rides!['1001']!.records as Ride[])[0]!;
    expect((await write('PATCH', `/driver-api/rides/${ride.id}`, { action: 'pause', at })).status).toBe(422);
    expect((await write('PATCH', '/driver-api/rides/1', { action: 'start', at })).status).toBe(404);
  });
});

describe('goods and scan traces', () => {
  it('adds a return good for the return trace type and an extra good for another, both in the task and GET goods', async () => {
    const task = untouchedTask();
    const good = { taskId: task.id, description: 'pallet', barcode: 'B-1', amount: 2 };
    expect((await write('POST', '/driver-api/goods/', { ...good, traceTypeId: '5' })).status).toBe(200);
    expect((await write('POST', '/driver-api/goods/', { ...good, traceTypeId: '6' })).status).toBe(200);
    const after = await getTask(task.id);
    expect(after.goods).toHaveLength(task.goods.length + 2);
    const added = await Promise.all(after.goods.slice(-2).map((ref) => getGood(ref.id)));
    expect(added.map((entry) => entry.kind)).toEqual(['return', 'extra']);
    expect(added[0]).toMatchObject({
      taskId: task.id,
      barcode: 'B-1',
      amount: 2,
      traces: [{ traceTypeId: '5' }],
    });
    const [planning] = await sim.items<Planning>(`/driver-api/planning/?${op}`);
    expect(planning!.goods.map((entry) => entry.id)).toContain(added[1]!.id);
  });

  it('answers 422 for an unknown task or trace type', async () => {
    const task = taskWith(() => true);
    const good = { taskId: task.id, description: 'x', barcode: 'x', amount: 1, traceTypeId: '6' };
    expect((await write('POST', '/driver-api/goods/', { ...good, taskId: 'nope' })).status).toBe(422);
    expect((await write('POST', '/driver-api/goods/', { ...good, traceTypeId: '99' })).status).toBe(422);
    expect((await write('POST', '/driver-api/goods/', { ...good, amount: 'one' })).status).toBe(422);
  });

  it('appends a scan trace to a good and answers 404 for an unknown good', async () => {
    const goodId = taskWith((candidate) => candidate.goods.length > 0).goods[0]!.id;
    const before = await getGood(goodId);
    const trace = {
      traceTypeId: '3',
      scannedAt: at,
      barcode: before.barcode,
      location: { latitude: 51.9, longitude: 4.4 },
    };
    expect((await write('POST', `/driver-api/goods/${seg(goodId)}/scan-traces`, trace)).status).toBe(200);
    expect((await getGood(goodId)).traces).toEqual([...before.traces, trace]);
    expect((await write('POST', '/driver-api/goods/nope/scan-traces', trace)).status).toBe(404);
    expect(
      (await write('POST', `/driver-api/goods/${seg(goodId)}/scan-traces`, { traceTypeId: '3' })).status,
    ).toBe(422);
  });
});

describe('chat', () => {
  it('sends a message visible in the window at its sentAt, and confirming sets readAt once', async () => {
    const id = mutationId('chat');
    expect(
      (await write('POST', '/driver-api/chat/messages', { mutationId: id, toId: '501', text: 'on my way' }))
        .status,
    ).toBe(200);
    const now = new Date(sim.now()).toISOString();
    const window = `/driver-api/chat/messages?${op}&fromMoment=${now}&toMoment=${new Date(sim.now() + 1).toISOString()}`;
    const [sent] = (await sim.items<ChatMessage>(window)).filter((message) => message.text === 'on my way');
    expect(sent).toMatchObject({ fromId: '1001', toId: '501', sentAt: now, readAt: null });
    await write('POST', `/driver-api/chat/messages/${seg(sent!.id)}/confirm`, { readAt: at });
    await write('POST', `/driver-api/chat/messages/${seg(sent!.id)}/confirm`, {});
    expect((await sim.items<ChatMessage>(window)).find((message) => message.id === sent!.id)?.readAt).toBe(
      at,
    );
    expect(await processed(id)).toEqual({ [id]: 'applied' });
  });

  it('does not apply a replayed mutation twice', async () => {
    const id = mutationId('replay');
    const body = { mutationId: id, toId: '502', text: 'replayed once' };
    await write('POST', '/driver-api/chat/messages', body);
    await write('POST', '/driver-api/chat/messages', body);
    const all = await sim.items<ChatMessage>(
      `/driver-api/chat/messages?${op}&fromMoment=2000-01-01&toMoment=2100-01-01`,
    );
    expect(all.filter((message) => message.text === 'replayed once')).toHaveLength(1);
  });

  it('answers 422 to an unknown recipient and 404 when confirming an unknown message', async () => {
    expect((await write('POST', '/driver-api/chat/messages', { toId: 'nobody', text: 'hi' })).status).toBe(
      422,
    );
    expect((await write('POST', '/driver-api/chat/messages/nope/confirm', {})).status).toBe(404);
  });
});

describe('writes without a listing', () => {
  it.each([
    [
      'POST',
      '/driver-api/vehicles/{vehicle}/refueling-stops',
      { liters: 320.5, odometerKm: 181_000, at },
      { liters: 0 },
    ],
    [
      'POST',
      '/driver-api/activity-changes/',
      { activityId: 2, at, operatorIdSecond: 1002 },
      { activityId: 7, at },
    ],
    [
      'POST',
      '/driver-api/tracking-positions/',
      { latitude: 51.9, longitude: 4.4, at, speedKmh: 80 },
      { latitude: 91, longitude: 0, at },
    ],
    [
      'POST',
      '/driver-api/settings/push-registrations',
      { pushToken: 'fcm-1', platform: 'android' },
      { pushToken: 'x', platform: 'web' },
    ],
    [
      'PUT',
      `/driver-api/devices/${seg('HW/01 #?%')}`,
      { platform: 'ios', model: 'iPhone 15', appVersion: '5.2.0' },
      [{ platform: 'ios' }],
    ],
  ])(
    '%s %s applies a valid body (reported by get-processed-mutations) and answers 422 to an invalid one',
    async (method, template, valid, invalid) => {
      const vehicle = (truth.vehicles!['']!.records as { id: string }[])[0]!.id;
      const path = template.replace('{vehicle}', seg(vehicle));
      const id = mutationId('write');
      const answer = await write(method, path, { ...valid, mutationId: id });
      expect(answer).toMatchObject({ status: 200, text: '' });
      expect(await processed(id)).toEqual({ [id]: 'applied' });
      expect((await write(method, path, invalid)).status).toBe(422);
    },
  );

  it('creates a device and updates it by the same hardware code', async () => {
    const path = `/driver-api/devices/${seg('HW-2')}`;
    expect((await write('PUT', path, { platform: 'android', model: 'A', appVersion: '1.0' })).status).toBe(
      200,
    );
    expect((await write('PUT', path, { platform: 'android', model: 'A', appVersion: '1.1' })).status).toBe(
      200,
    );
  });

  it('takes any JSON object as a device, as the spec shows none of its fields, idempotent by hardware code', async () => {
    const path = `/driver-api/devices/${seg('HW-3')}`;
    const other = {
      os: { name: 'Android', version: 14 },
      pushEnabled: true,
      mutationId: mutationId('device'),
    };
    expect((await write('PUT', path, other)).status).toBe(200);
    expect(await processed(other.mutationId)).toEqual({ [other.mutationId]: 'applied' });
    expect((await write('PUT', path, {})).status).toBe(200);
    expect((await write('PUT', path, {})).status).toBe(200);
    expect((await write('PUT', path, { mutationId: 7 })).status).toBe(422);
  });

  it('answers 404 for refueling an unknown vehicle and 422 for an unknown second operator', async () => {
    expect(
      (await write('POST', '/driver-api/vehicles/nope/refueling-stops', { liters: 1, odometerKm: 1, at }))
        .status,
    ).toBe(404);
    const change = { activityId: 2, at, operatorIdSecond: 4242 };
    expect((await write('POST', '/driver-api/activity-changes/', change)).status).toBe(422);
  });

  it('stores questionnaire answers for the latest version and checks them against its questions', async () => {
    const [questionnaire] = await sim.items<Questionnaire>('/driver-api/questionnaires/?latest=true');
    const answers = questionnaire!.questions.map((question) => ({
      key: question.key,
      answerType: question.answerType,
      value: 'yes',
    }));
    const body = {
      triggerQuestionKey: answers[0]!.key,
      taskIds: [],
      rideId: '',
      goodId: '',
      traceTypeId: '',
      completedAt: at,
      answers,
    };
    const id = mutationId('answers');
    const path = `/driver-api/questionnaires/${seg(questionnaire!.id)}/answers`;
    expect((await sim.call('POST', path, { body: { ...body, mutationId: id } })).status).toBe(200);
    expect(await processed(id)).toEqual({ [id]: 'applied' });
    expect((await sim.call('POST', path, { body: { ...body, answers: [] } })).status).toBe(422);
    expect((await sim.call('POST', path, { body: { ...body, completedAt: 'now' } })).status).toBe(422);
    expect((await sim.call('POST', '/driver-api/questionnaires/nope/answers', { body })).status).toBe(404);
  });

  it('answers get-processed-mutations with only the processed ids, and 422 to a body without mutationIds', async () => {
    expect(await processed('never-1', 'never-2')).toEqual({});
    expect((await sim.call('POST', '/driver-api/get-processed-mutations/', { body: {} })).status).toBe(422);
  });
});

describe('random changes', () => {
  it('change the Driver API truth and name what they changed', async () => {
    const before = await sim.truth();
    const changes = await sim.changes(10);
    expect(changes).toHaveLength(10);
    for (const change of changes)
      expect(change).toMatchObject({ kind: expect.any(String), stream: expect.any(String) });
    expect(await sim.truth()).not.toEqual(before);
  });
});
