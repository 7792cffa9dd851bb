import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streams } from '../../config/streams.js';
import { createTmsClient, type TmsClient } from '../../src/client/index.js';
import type { ChatContact, Questionnaire, Ride, Task } from '../../src/sim/records/index.js';
import type { StreamTruth } from '../../src/sim/stream-truth.js';
import { fastRetry, type StartedSim, startTestSim, truth } from './support/sim.js';

const operatorId = '1001';
const op = { operatorId };
const at = '2024-05-01T10:00:00Z';

let sim: StartedSim;
let client: TmsClient;
let state: StreamTruth;
const records = <T>(stream: string, scope = operatorId) => state[stream]![scope]!.records as T[];
const newMutation = (name: string) => `${name}-${Math.random().toString(36).slice(2)}`;

async function expectApplied(mutationId: string): Promise<void> {
  const items = await client.getProcessedMutations([mutationId]);
  expect(items).toMatchObject([{ mutationId, result: 'applied' }]);
}

beforeAll(async () => {
  sim = await startTestSim({ variant: { idStyle: 'unsafe' } });
  client = createTmsClient({ baseUrl: sim.url, apiToken: 'dev-api-token', retry: fastRetry });
  state = await truth(sim.url);
});
afterAll(async () => {
  await client?.close();
  await sim?.close();
});

describe('Driver API reads', () => {
  const wholeDay = { fromMoment: '1970-01-01T00:00:00Z', toMoment: '2100-01-01T00:00:00Z' };
  it.each([
    ['getRides', () => client.getRides(op), 'rides', operatorId],
    ['getTasks', () => client.getTasks(op), 'tasks', operatorId],
    ['getColorProfiles', () => client.getColorProfiles(op), 'color_profiles', operatorId],
    ['getChatMessages', () => client.getChatMessages({ ...op, ...wholeDay }), 'chat_messages', operatorId],
    ['getVehicles', () => client.getVehicles(), 'vehicles', ''],
    ['getTrailers', () => client.getTrailers(), 'trailers', ''],
    ['getTraceTypes', () => client.getTraceTypes(), 'trace_types', ''],
    ['getPackaging', () => client.getPackaging(), 'packaging', ''],
    ['getCompletionStatuses', () => client.getCompletionStatuses(), 'completion_statuses', ''],
    ['getActivities', () => client.getActivities(), 'activities', ''],
    ['getDriverContacts', () => client.getDriverContacts(), 'driver_contacts', ''],
    ['getChatContacts', () => client.getChatContacts(), 'chat_contacts', ''],
    ['getQuestionnaires', () => client.getQuestionnaires({ latest: true }), 'questionnaires', ''],
  ])('%s lists exactly the records the simulator holds, as received', async (_, call, stream, scope) => {
    expect(await call()).toEqual(records(stream, scope));
  });

  it('getTasks with ids lists only those tasks', async () => {
    const ids = records<Task>('tasks')
      .slice(0, 2)
      .map((task) => task.id);
    expect((await client.getTasks({ ...op, ids })).map((task) => task.id)).toEqual(ids);
  });

  it.each([
    [
      'getGoods',
      (ids: string[]) => client.getGoods({ ...op, ids }),
      'goods',
      (task: Task) => task.goods.map((g) => g.id),
    ],
    [
      'getTaskPackagingBalances',
      (ids: string[]) => client.getTaskPackagingBalances({ ...op, ids }),
      'task_packaging_balances',
      (task: Task) => [task.id],
    ],
    [
      'getClientPackagingBalances',
      (ids: string[]) => client.getClientPackagingBalances({ ...op, ids }),
      'client_packaging_balances',
      (task: Task) => [task.client.id],
    ],
  ])('%s answers the records of the ids the tasks reference', async (_, call, stream, idsOf) => {
    const ids = [...new Set(records<Task>('tasks').flatMap(idsOf))];
    const items = await call(ids);
    expect(items).toEqual(expect.arrayContaining(records(stream)));
    expect(items).toHaveLength(records(stream).length);
  });

  it('getSettings, getPlanning and getVersion answer the single record of their scope', async () => {
    expect(await client.getSettings(op)).toEqual(records('settings')[0]);
    expect(await client.getPlanning(op)).toEqual(records('planning')[0]);
    expect(await client.getPlanning({ ...op, use: 'legacy' })).toEqual(records('planning')[0]);
    expect(await client.getVersion()).toEqual(records('tms_version', '')[0]);
  });

  it('getLogo reads a logo by id', async () => {
    expect(await client.getLogo(1)).toMatchObject({ id: 1, mediaType: 'image/png' });
  });

  it('getDossierFolder reads the folder of an order the tasks reference (unsafe ids encoded)', async () => {
    const folder = records<{ orderId: string }>('dossier_folders')[0]!;
    expect(await client.getDossierFolder({ ...op, orderId: folder.orderId })).toEqual(folder);
  });

  it('driverList and driverRecord read streams straight from the catalogue', async () => {
    expect(await client.driverList(streams.tasks, op)).toEqual(records('tasks'));
    expect(await client.driverRecord(streams.settings, op)).toEqual(records('settings')[0]);
  });
});

describe('Driver API writes', () => {
  it('patchTask starts a task', async () => {
    const task = records<Task>('tasks').find((candidate) => candidate.status === 'notStarted')!;
    await client.patchTask(task.id, { status: 'started' }, op);
    expect((await client.getTasks({ ...op, ids: [task.id] }))[0]!.status).toBe('started');
  });

  it('patchRide starts a planned ride', async () => {
    const ride = records<Ride>('rides').find((candidate) => candidate.status === 'planned')!;
    await client.patchRide(ride.id, { action: 'start', at }, op);
    expect((await client.getRides(op)).find((candidate) => candidate.id === ride.id)!.status).toBe('started');
  });

  it('addGood adds an extra good to a task and addScanTrace appends a scan to it', async () => {
    const task = records<Task>('tasks')[0]!;
    const traceTypeId = records<{ id: string }>('trace_types', '')[0]!.id;
    await client.addGood({ taskId: task.id, description: 'box', barcode: 'B1', amount: 1, traceTypeId }, op);
    const after = (await client.getTasks({ ...op, ids: [task.id] }))[0] as Task;
    const goodId = after.goods.at(-1)!.id;
    expect(after.goods).toHaveLength(task.goods.length + 1);
    await client.addScanTrace(goodId, { traceTypeId, scannedAt: at, barcode: 'B1' }, op);
    expect((await client.getGoods({ ...op, ids: [goodId] }))[0]!.traces).toHaveLength(2);
  });

  it('addRefuelingStop, addActivityChange, addTrackingPosition and registerPush are applied', async () => {
    const vehicleId = records<{ id: string }>('vehicles', '')[0]!.id;
    const activityId = records<{ id: number }>('activities', '')[0]!.id;
    const ids = ['refuel', 'activity', 'position', 'push'].map(newMutation);
    await client.addRefuelingStop(vehicleId, { mutationId: ids[0], liters: 40, odometerKm: 1000, at }, op);
    await client.addActivityChange({ mutationId: ids[1], activityId, at }, op);
    await client.addTrackingPosition({ mutationId: ids[2], latitude: 52, longitude: 5, at }, op);
    await client.registerPush({ mutationId: ids[3], pushToken: 'push-1', platform: 'android' }, op);
    for (const id of ids) await expectApplied(id!);
  });

  it('upsertDevice creates or updates a device by an encoded hardware code', async () => {
    const mutationId = newMutation('device');
    await client.upsertDevice('hw/1 #?', { mutationId, platform: 'ios', model: 'X', appVersion: '1.0' }, op);
    await expectApplied(mutationId);
  });

  it('sendChatMessage sends a message and confirmChatMessage marks it read', async () => {
    const toId = records<ChatContact>('chat_contacts', '').find((contact) => contact.id !== operatorId)!.id;
    await client.sendChatMessage({ toId, text: 'hello from the client' }, op);
    const window = { fromMoment: '1970-01-01T00:00:00Z', toMoment: '2100-01-01T00:00:00Z' };
    const sent = (await client.getChatMessages({ ...op, ...window })).find(
      (m) => m.text === 'hello from the client',
    )!;
    expect(sent.readAt).toBeNull();
    await client.confirmChatMessage(String(sent.id), { readAt: at }, op);
    const read = (await client.getChatMessages({ ...op, ...window })).find((m) => m.id === sent.id)!;
    expect(read.readAt).toBe(at);
  });

  it('submitQuestionnaireAnswers answers every question of the latest questionnaire', async () => {
    const questionnaire = records<Questionnaire>('questionnaires', '')[0]!;
    const mutationId = newMutation('answers');
    const answers = questionnaire.questions.map((question) => ({
      key: question.key,
      answerType: question.answerType,
      value: 'yes',
    }));
    const task = records<Task>('tasks')[0]!;
    await client.submitQuestionnaireAnswers(questionnaire.id, {
      mutationId,
      triggerQuestionKey: answers[0]!.key,
      taskIds: [task.id],
      rideId: String(task.rideId ?? ''),
      goodId: '',
      traceTypeId: '',
      completedAt: at,
      answers,
    });
    await expectApplied(mutationId);
  });

  it('uploadDossierFile stores a Buffer or a stream and downloadDossierFile reads it back', async () => {
    const task = records<Task>('tasks')[0]!;
    const fromBuffer = await client.uploadDossierFile({
      attachTo: 'tasks',
      ids: [task.id],
      name: 'cmr.txt',
      type: 'document',
      body: Buffer.from('signed cmr'),
    });
    expect(fromBuffer).toMatchObject({
      file: { name: 'cmr.txt', size: 10 },
      attachedTo: { kind: 'tasks', ids: [task.id] },
    });
    await client.uploadDossierFile({
      attachTo: 'tasks',
      ids: task.id,
      name: 'photo 1.bin',
      type: 'damage',
      body: Readable.from([Buffer.from('abc'), Buffer.from('def')]),
    });
    const read = (subpath: string) =>
      client.downloadDossierFile({ orderId: task.order.id, subpath }, async (body) =>
        Buffer.concat(await body.toArray()).toString(),
      );
    expect(await read('cmr.txt')).toBe('signed cmr');
    expect(await read('photo 1.bin')).toBe('abcdef');
    const folder = await client.getDossierFolder({ ...op, orderId: task.order.id });
    expect((folder.files as Array<{ name: string }>).map((file) => file.name)).toEqual(
      expect.arrayContaining(['cmr.txt', 'photo 1.bin']),
    );
  });

  it("downloadDossierFile stops reading the body when the caller's signal aborts mid-file", async () => {
    const task = records<Task>('tasks')[0]!;
    await client.uploadDossierFile({
      attachTo: 'tasks',
      ids: [task.id],
      name: 'big.bin',
      type: 'document',
      body: Buffer.alloc(8 * 1024 * 1024, 1),
    });
    const caller = new AbortController();
    let read = 0;
    const download = client.downloadDossierFile(
      { orderId: task.order.id, subpath: 'big.bin', signal: caller.signal },
      async (body) => {
        for await (const chunk of body) {
          read += (chunk as Buffer).length;
          if (!caller.signal.aborted) caller.abort(new Error('caller gave up'));
        }
        return read;
      },
    );
    await expect(download).rejects.toThrow('caller gave up');
    expect(read).toBeLessThan(8 * 1024 * 1024);
  });

  it('getProcessedMutations reports unknown mutations as not processed', async () => {
    expect(await client.getProcessedMutations(['never-sent'])).toEqual([]);
  });
});
