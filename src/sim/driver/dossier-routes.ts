import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DossierFile, DossierUploadResult } from '../records/index.js';
import { SimHttpError } from '../sim-http-error.js';
import { addDossierFile } from './dossier-store.js';
import type { DriverData } from './driver-data.js';
import { runMutation } from './processed-mutations.js';
import { splitIds } from './query-params.js';
import { notFound } from './validate-body.js';

/** What the dossier routes need from the Driver API part: its data, the auth check and "something changed". */
export interface DossierRoutesContext {
  readonly data: DriverData;
  authenticate(request: FastifyRequest): void;
  now(): string;
  changed(): void;
}

const fileTypes = new Set<DossierFile['type']>(['damage', 'document', 'other', 'questionnaire']);
const badRequest = (message: string) => new SimHttpError(400, 'bad_request', message);

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The orders whose folders receive an upload: the tasks' orders, or the orders of the rides' tasks. */
function targetOrders(data: DriverData, kind: 'rides' | 'tasks', ids: ReadonlySet<string>): Set<string> {
  const orders = new Set<string>();
  for (const id of ids) {
    let found = false;
    for (const operator of data.operators.values()) {
      const ride = kind === 'rides' ? operator.rides.get(Number(id)) : undefined;
      const taskIds = kind === 'tasks' ? [id] : ride && String(ride.id) === id ? ride.taskIds : [];
      for (const taskId of taskIds) {
        const task = operator.tasks.get(taskId);
        if (task) orders.add(task.order.id);
      }
      found ||= kind === 'tasks' ? operator.tasks.has(id) : ride !== undefined;
    }
    if (!found) throw notFound(kind === 'rides' ? 'ride' : 'task', id);
  }
  return orders;
}

function upload(
  context: DossierRoutesContext,
  kind: 'rides' | 'tasks',
  request: FastifyRequest,
): DossierUploadResult {
  const idsHeader = header(request, 'ids');
  const name = header(request, 'name');
  const type = header(request, 'type') as DossierFile['type'] | undefined;
  if (!idsHeader)
    throw badRequest(`header ids is required (comma-separated ${kind === 'rides' ? 'ride' : 'task'} ids)`);
  if (!name) throw badRequest('header name is required');
  if (!type || !fileTypes.has(type))
    throw badRequest('header type must be damage, document, other or questionnaire');
  if (!Buffer.isBuffer(request.body) || request.body.length === 0) {
    throw badRequest('the body must be the file, as application/octet-stream');
  }
  const ids = splitIds(idsHeader);
  const orders = targetOrders(context.data, kind, ids);
  const file = addDossierFile(context.data, orders, {
    name,
    type,
    bytes: request.body,
    uploadedAt: context.now(),
  });
  return { file, attachedTo: { kind, ids: [...ids] } };
}

/** POST /driver-api/dossier/rides and /tasks (binary uploads) and the binary download of a stored file. */
export function registerDossierRoutes(app: FastifyInstance, context: DossierRoutesContext): void {
  for (const kind of ['rides', 'tasks'] as const) {
    app.post(`/driver-api/dossier/${kind}`, async (request) => {
      context.authenticate(request);
      const mutationId = header(request, 'mutationid');
      const run = { data: context.data, mutationId, operation: 'uploadDossierFile', now: context.now() };
      const result = runMutation({ ...run, replays: 'apply' }, () => upload(context, kind, request))!;
      context.changed();
      return { data: { code: 200, items: [result], itemCount: 1 } };
    });
  }
  app.get('/driver-api/dossier/orders/:id/contents/*', async (request, reply) => {
    context.authenticate(request);
    const { id, '*': subpath } = request.params as { id: string; '*': string };
    const stored = context.data.dossiers.get(id)?.get(subpath);
    if (!stored) throw notFound('dossier file', `${id}/${subpath}`);
    return reply.type('application/octet-stream').send(stored.bytes);
  });
}
