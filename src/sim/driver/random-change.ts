import { addTask } from './add-task.js';
import type { DriverData, OperatorData } from './driver-data.js';
import type { DriverChange } from './driver-sim.js';
import { taskTypes } from './generate-master-data.js';
import { newOrder } from './generate-operator-data.js';
import { addGood } from './good-writes.js';
import { patchRide } from './ride-update.js';
import type { Rng } from './rng.js';
import { chatTexts, goodDescriptions } from './sample-values.js';
import { patchTask } from './task-update.js';

const minute = 60_000;
const day = 24 * 60 * minute;

/** One kind of change: applies itself, or answers undefined when the data offers nothing to change. */
type Change = (data: DriverData, operator: OperatorData, rng: Rng, now: number) => DriverChange | undefined;

const iso = (ms: number) => new Date(ms).toISOString();
const openTasks = (operator: OperatorData) =>
  [...operator.tasks.values()].filter((task) => task.status === 'notStarted' || task.status === 'started');

const taskUpdated: Change = (data, operator, rng, now) => {
  const task = rng.pick([...operator.tasks.values()]);
  const advance =
    task.status === 'notStarted' ? 'started' : task.status === 'started' ? 'completed' : undefined;
  const next = advance
    ? patchTask(task, { status: advance }, iso(now), data.master)
    : { ...task, instructions: `${task.instructions} Updated by planning.`.trim() };
  operator.tasks.set(task.id, next);
  return {
    kind: advance ? `task_${advance}` : 'task_updated',
    stream: 'tasks',
    operatorId: operator.operatorId,
    id: task.id,
  };
};

const taskCreated: Change = (data, operator, rng, now) => {
  const plannedStart = Math.floor(now / day + 1) * day + rng.int(7, 17) * 60 * minute;
  const type = taskTypes[2]!;
  const task = addTask(data, operator, rng, {
    ...newOrder(data, rng),
    type,
    status: 'notStarted',
    plannedStart,
    ride: null,
  });
  return { kind: 'task_created', stream: 'tasks', operatorId: operator.operatorId, id: task.id };
};

const taskRemoved: Change = (_, operator, rng) => {
  const candidates = [...operator.tasks.values()].filter((task) => task.status === 'notStarted');
  if (candidates.length === 0) return undefined;
  const task = rng.pick(candidates);
  operator.tasks.delete(task.id);
  operator.taskOpeningBalances.delete(task.id);
  for (const good of task.goods) operator.goods.delete(good.id);
  const ride = task.rideId === null ? undefined : operator.rides.get(task.rideId);
  if (ride) operator.rides.set(ride.id, { ...ride, taskIds: ride.taskIds.filter((id) => id !== task.id) });
  return { kind: 'task_removed', stream: 'tasks', operatorId: operator.operatorId, id: task.id };
};

const rideMoved: Change = (_, operator, rng, now) => {
  const candidates = [...operator.rides.values()].filter((ride) => ride.status !== 'ended');
  if (candidates.length === 0) return undefined;
  const ride = rng.pick(candidates);
  const action = ride.status === 'planned' ? 'start' : 'end';
  operator.rides.set(ride.id, patchRide(ride, { action, at: iso(now) }));
  return { kind: `ride_${action}ed`, stream: 'rides', operatorId: operator.operatorId, id: String(ride.id) };
};

const goodAdded: Change = (data, operator, rng, now) => {
  const tasks = openTasks(operator);
  if (tasks.length === 0) return undefined;
  const task = rng.pick(tasks);
  const barcode = `872${String(rng.int(0, 9_999_999_999)).padStart(10, '0')}`;
  const body = {
    taskId: task.id,
    description: rng.pick(goodDescriptions),
    barcode,
    amount: rng.int(1, 6),
    traceTypeId: '6',
  };
  addGood(data, operator, body, iso(now));
  const id = operator.tasks.get(task.id)!.goods.at(-1)!.id;
  return { kind: 'good_added', stream: 'goods', operatorId: operator.operatorId, id };
};

/** A planner's message; one in three arrives late, stamped minutes before now (the window overlap case). */
const chatMessage: Change = (data, operator, rng, now) => {
  const planner = rng.pick(data.master.chatContacts.filter((contact) => contact.kind === 'planner'));
  const late = rng.chance(1 / 3);
  const id = data.ids.next('message');
  const sentAt = iso(late ? now - rng.int(2, 30) * minute : now);
  operator.chat.set(id, {
    id,
    fromId: planner.id,
    toId: operator.operatorId,
    text: rng.pick(chatTexts),
    sentAt,
    readAt: null,
  });
  return {
    kind: late ? 'chat_message_late' : 'chat_message',
    stream: 'chat_messages',
    operatorId: operator.operatorId,
    id,
  };
};

const clientBalanceChanged: Change = (data, operator, rng) => {
  const clientId = rng.pick([...operator.tasks.values()]).client.id;
  const balance = data.clientBalances.get(clientId)!;
  const packagingId = rng.pick(data.master.packaging.filter((packaging) => packaging.isCarrier)).id;
  const others = balance.packagingBalances.filter((entry) => entry.packagingId !== packagingId);
  const packagingBalances = [...others, { packagingId, balance: rng.int(-20, 80) }];
  data.clientBalances.set(clientId, { clientId, packagingBalances });
  return {
    kind: 'client_balance_changed',
    stream: 'client_packaging_balances',
    operatorId: operator.operatorId,
    id: clientId,
  };
};

/** Replaces one random record of a master data list with an edited copy; answers its id. */
function editOne<T extends { id: string | number }>(
  list: T[],
  rng: Rng,
  edit: (record: T) => Partial<T>,
): string {
  const index = rng.int(0, list.length - 1);
  const record = list[index]!;
  list[index] = { ...record, ...edit(record) };
  return String(record.id);
}

function masterDataChanged(data: DriverData, rng: Rng): DriverChange {
  const { master } = data;
  const edits = [
    () => ({
      stream: 'vehicles',
      id: editOne(master.vehicles, rng, (vehicle) => ({
        name: `${vehicle.name.split(' (')[0]} (${rng.pick(['serviced', 'new tyres', 'spare'])})`,
      })),
    }),
    () => ({
      stream: 'trailers',
      id: editOne(master.trailers, rng, () => ({
        licensePlate: `O${String.fromCharCode(65 + rng.int(0, 25))}-${rng.int(10, 99)}-${rng.int(10, 99)}`,
      })),
    }),
    () => ({
      stream: 'driver_contacts',
      id: editOne(master.driverContacts, rng, () => ({ phone: `+31 10 744 ${rng.int(2000, 2999)}` })),
    }),
    () => ({
      stream: 'trace_types',
      id: editOne(master.traceTypes, rng, () => ({ color: rng.int(0, 0xffffff) })),
    }),
  ];
  return { kind: 'master_data_changed', ...rng.pick(edits)() };
}

const operatorChanges: readonly Change[] = [
  taskUpdated,
  taskUpdated,
  taskCreated,
  taskRemoved,
  rideMoved,
  goodAdded,
  chatMessage,
  chatMessage,
  clientBalanceChanged,
];
const planChanges = new Set<Change>([taskUpdated, taskCreated, taskRemoved, rideMoved, goodAdded]);

/** Applies one random change: to a random operator's data (nine in ten) or to the master data. */
export function applyRandomChange(data: DriverData, rng: Rng, now: number): DriverChange {
  const operators = [...data.operators.values()];
  const onOperator = operators.length > 0 && rng.chance(0.9);
  // A kind that finds nothing to change (no open ride, no task to remove) draws again.
  for (let attempt = 0; onOperator && attempt < 20; attempt++) {
    const change = rng.pick(operatorChanges);
    const operator = rng.pick(operators);
    if (operator.tasks.size === 0 && change !== taskCreated) continue;
    const result = change(data, operator, rng, now);
    if (!result) continue;
    if (planChanges.has(change)) operator.planningChangedAt = iso(now);
    return result;
  }
  return masterDataChanged(data, rng);
}
