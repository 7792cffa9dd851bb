import type { Good, Task, TaskClient, TaskType } from '../records/index.js';
import { addDossierFile } from './dossier-store.js';
import type { DriverData, OperatorData } from './driver-data.js';
import { generateTask } from './generate-task.js';
import type { Rng } from './rng.js';
import { goodDescriptions, type products } from './sample-values.js';

/** Where a new task goes: its order, client, ride and plan; ids and goods are made here. */
export interface NewTask {
  type: TaskType;
  status: Task['status'];
  plannedStart: number;
  client: TaskClient;
  orderId: string;
  product: (typeof products)[number];
  ride: { id: number; trailerId: number | null; index: number } | null;
}

/**
 * Creates a task with its goods and opening packaging balance and adds them to the operator; also
 * opens the order's dossier folder. Used by the initial generator and by random changes alike.
 */
export function addTask(data: DriverData, operator: OperatorData, rng: Rng, input: NewTask): Task {
  const id = data.ids.next('task');
  const isStop = !input.type.isStart && !input.type.isEnd;
  const goods = isStop ? Array.from({ length: rng.int(1, 4) }, () => newGood(data, rng, id)) : [];
  const task = generateTask(rng, data.master, {
    id,
    index: input.ride?.index ?? 0,
    type: input.type,
    status: input.status,
    plannedStart: input.plannedStart,
    client: input.client,
    orderId: input.orderId,
    product: input.product,
    rideId: input.ride?.id ?? null,
    trailerId: input.ride?.trailerId ?? null,
    goodIds: goods.map((good) => good.id),
  });
  if (task.status === 'completed') {
    const scannedAt = task.completion.when.end ?? task.planned.end!;
    for (const good of goods)
      good.traces.push(trace(input.type.code === 'LOAD' ? '1' : '2', scannedAt, good));
  }
  operator.tasks.set(id, task);
  for (const good of goods) operator.goods.set(good.id, good);
  operator.taskOpeningBalances.set(
    id,
    isStop && rng.chance(0.5)
      ? [{ packagingId: data.master.packaging[0]!.id, balance: rng.int(-8, 24) }]
      : [],
  );
  if (!data.dossiers.has(input.orderId)) data.dossiers.set(input.orderId, new Map());
  if (task.status === 'completed' && input.type.code === 'UNLOAD' && rng.chance(0.4)) {
    const bytes = Buffer.from(
      `%PDF-1.4\n% CMR of order ${input.orderId}, signed by ${task.completion.contactName}\n`,
    );
    addDossierFile(data, [input.orderId], {
      name: 'cmr.pdf',
      type: 'document',
      bytes,
      uploadedAt: task.completion.when.end!,
    });
  }
  return task;
}

/** A planned good of a task. */
function newGood(data: DriverData, rng: Rng, taskId: string): Good {
  const id = data.ids.next('good');
  return {
    id,
    taskId,
    description: rng.pick(goodDescriptions),
    barcode: `871${String(rng.int(0, 9_999_999_999)).padStart(10, '0')}`,
    amount: rng.int(1, 33),
    packagingId: rng.chance(0.8) ? rng.pick(data.master.packaging).id : null,
    weightKg: rng.int(20, 1200) + rng.int(0, 9) / 10,
    kind: 'planned',
    traces: [],
  };
}

const trace = (traceTypeId: string, scannedAt: string, good: Good) => ({
  traceTypeId,
  scannedAt,
  barcode: good.barcode,
  location: null,
});
