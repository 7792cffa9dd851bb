import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DossierFolder, Ride, Task } from '../../src/sim/records/index.js';
import type { StreamTruth } from '../../src/sim/stream-truth.js';
import { type DriverTestSim, envelopeOf, seg, startDriverTestSim } from './driver-test-sim.js';

let sim: DriverTestSim;
let truth: StreamTruth;
const tasks = () => truth.tasks!['1001']!.records as Task[];
const everyByte = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));

const upload = (kind: 'rides' | 'tasks', headers: Record<string, string>, body: unknown = everyByte) =>
  sim.call('POST', `/driver-api/dossier/${kind}`, { headers, body });
const folder = async (orderId: string): Promise<DossierFolder> =>
  (await sim.items<DossierFolder>(`/driver-api/dossier/orders/${seg(orderId)}`))[0]!;
async function download(orderId: string, subpath: string) {
  const url = `${sim.url}/driver-api/dossier/orders/${seg(orderId)}/contents/${subpath.split('/').map(seg).join('/')}`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${sim.apiToken}` } });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, type: response.headers.get('content-type'), bytes };
}

beforeAll(async () => {
  sim = await startDriverTestSim({ variant: { idStyle: 'unsafe' } });
  truth = await sim.truth();
});
afterAll(() => sim?.close());

describe('dossier uploads and downloads', () => {
  it('stores a task upload in the folder of the task order and gives the same bytes back', async () => {
    const [first, second] = tasks().filter((task) => task.type.code === 'UNLOAD');
    const ids = `${first!.id},${second!.id}`;
    const answer = await upload('tasks', { ids, name: 'damage/photo 1.jpg', type: 'damage' });
    expect(answer.status).toBe(200);
    expect(envelopeOf(answer)).toMatchObject({ code: 200, itemCount: 1 });
    expect(envelopeOf(answer).items[0]).toMatchObject({
      file: { name: 'damage/photo 1.jpg', type: 'damage', size: 256 },
      attachedTo: { kind: 'tasks', ids: [first!.id, second!.id] },
    });
    for (const task of [first!, second!]) {
      expect((await folder(task.order.id)).files.map((file) => file.name)).toContain('damage/photo 1.jpg');
      const answer = await download(task.order.id, 'damage/photo 1.jpg');
      expect(answer).toEqual({ status: 200, type: 'application/octet-stream', bytes: everyByte });
    }
  });

  it('stores a ride upload in the folders of the orders of the ride tasks', async () => {
    const ride = (truth.rides!['1001']!.records as Ride[])[0]!;
    const answer = await upload('rides', { ids: String(ride.id), name: 'cmr-scan.pdf', type: 'document' });
    expect(answer.status).toBe(200);
    const orders = new Set(
      tasks()
        .filter((task) => task.rideId === ride.id)
        .map((task) => task.order.id),
    );
    for (const orderId of orders) {
      expect((await folder(orderId)).files.map((file) => file.name)).toContain('cmr-scan.pdf');
    }
  });

  it('shows the upload in the dossier_folders truth', async () => {
    const task = tasks().find((candidate) => candidate.type.code === 'LOAD')!;
    await upload('tasks', { ids: task.id, name: 'truth.txt', type: 'other' }, Buffer.from('hello'));
    const folders = (await sim.truth()).dossier_folders!['1001']!.records as DossierFolder[];
    const entry = folders.find((candidate) => candidate.orderId === task.order.id)!;
    expect(entry.files.find((file) => file.name === 'truth.txt')).toMatchObject({ size: 5, type: 'other' });
  });

  it.each([
    ['without ids', { name: 'a', type: 'other' }],
    ['without name', { ids: 'x', type: 'other' }],
    ['with a type outside damage, document, other, questionnaire', { ids: 'x', name: 'a', type: 'selfie' }],
  ])('answers 400 to an upload %s', async (_, headers) => {
    const task = tasks()[0]!;
    const withTask = 'ids' in headers ? { ...headers, ids: task.id } : headers;
    expect((await upload('tasks', withTask as Record<string, string>)).status).toBe(400);
  });

  it('answers 400 to an empty file, 404 to an unknown task or ride and 413 above 10 MB', async () => {
    const task = tasks()[0]!;
    const headers = { ids: task.id, name: 'a.bin', type: 'other' };
    expect((await upload('tasks', headers, Buffer.alloc(0))).status).toBe(400);
    expect((await upload('tasks', { ...headers, ids: 'no-such-task' })).status).toBe(404);
    expect((await upload('rides', { ...headers, ids: '7' })).status).toBe(404);
    expect((await upload('tasks', headers, Buffer.alloc(10 * 1024 * 1024 + 1))).status).toBe(413);
  });

  it('answers 404 for a file that is not in the folder', async () => {
    expect((await download(tasks()[0]!.order.id, 'nothing-here.pdf')).status).toBe(404);
    expect((await download('no-such-order', 'cmr.pdf')).status).toBe(404);
  });

  it('reports an upload with a mutationId header as processed', async () => {
    const headers = { ids: tasks()[0]!.id, name: 'm.bin', type: 'other', mutationId: 'upload-1' };
    expect((await upload('tasks', headers)).status).toBe(200);
    const answer = await sim.call('POST', '/driver-api/get-processed-mutations/', {
      body: { mutationIds: ['upload-1'] },
    });
    expect(envelopeOf(answer).items).toMatchObject([
      { mutationId: 'upload-1', operation: 'uploadDossierFile', result: 'applied' },
    ]);
  });
});
