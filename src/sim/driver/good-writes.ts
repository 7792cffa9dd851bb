import type { NewGood, NewScanTrace } from '../records/index.js';
import type { DriverData, OperatorData } from './driver-data.js';
import { notFound, unknownReference } from './validate-body.js';

function checkTraceType(data: DriverData, traceTypeId: string): void {
  if (!data.master.traceTypes.some((type) => type.id === traceTypeId))
    throw unknownReference('traceTypeId', traceTypeId);
}

/**
 * POST /driver-api/goods/: the scan-trace type decides the kind (a return trace type makes a return
 * good, any other an extra good); the good joins its task's `goods` with the scan as its first trace.
 */
export function addGood(data: DriverData, operator: OperatorData, body: NewGood, now: string): void {
  const task = operator.tasks.get(body.taskId);
  if (!task) throw unknownReference('taskId', body.taskId);
  checkTraceType(data, body.traceTypeId);
  const id = data.ids.next('good');
  operator.goods.set(id, {
    id,
    taskId: task.id,
    description: body.description,
    barcode: body.barcode,
    amount: body.amount,
    packagingId: null,
    weightKg: 0,
    kind: data.master.returnTraceTypeIds.has(body.traceTypeId) ? 'return' : 'extra',
    traces: [{ traceTypeId: body.traceTypeId, scannedAt: now, barcode: body.barcode, location: null }],
  });
  operator.tasks.set(task.id, { ...task, goods: [...task.goods, { id }] });
}

/** POST /driver-api/goods/{id}/scan-traces: appends the scan to the good's traces. */
export function addScanTrace(
  data: DriverData,
  operator: OperatorData,
  goodId: string,
  body: NewScanTrace,
): void {
  const good = operator.goods.get(goodId);
  if (!good) throw notFound('good', goodId);
  checkTraceType(data, body.traceTypeId);
  const trace = {
    traceTypeId: body.traceTypeId,
    scannedAt: body.scannedAt,
    barcode: body.barcode,
    location: body.location ?? null,
  };
  operator.goods.set(goodId, { ...good, traces: [...good.traces, trace] });
}
