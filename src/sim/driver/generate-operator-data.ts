import type { ChatMessage, ColorProfile, Ride, Task } from '../records/index.js';
import { addTask } from './add-task.js';
import type { DriverData, OperatorData } from './driver-data.js';
import { taskTypes } from './generate-master-data.js';
import type { Rng } from './rng.js';
import { chatTexts, products } from './sample-values.js';

const minute = 60_000;
const day = 24 * 60 * minute;
const iso = (ms: number) => new Date(ms).toISOString();
const [startType, loadType, unloadType, endType] = taskTypes as [
  (typeof taskTypes)[0],
  (typeof taskTypes)[0],
  (typeof taskTypes)[0],
  (typeof taskTypes)[0],
];

/**
 * One operator's data: rides from two days ago to four days ahead (past ones ended, today's under
 * way, later ones planned), their tasks and goods, a few unassigned tasks, a week of chat, settings.
 */
export function generateOperatorData(
  data: DriverData,
  rng: Rng,
  operatorId: string,
  rideDays = 7,
): OperatorData {
  const operator: OperatorData = {
    operatorId,
    tasks: new Map(),
    rides: new Map(),
    goods: new Map(),
    taskOpeningBalances: new Map(),
    chat: new Map(),
    settings: {
      operatorId,
      language: rng.pick(['nl', 'nl', 'en', 'de', 'fr']),
      distanceUnit: rng.chance(0.9) ? 'km' : 'mi',
      trackingIntervalSeconds: rng.pick([15, 30, 60]),
      allowChat: true,
    },
    colorProfiles: colorProfiles(rng),
    planningChangedAt: iso(data.anchor),
    writes: { refuelingStops: [], activityChanges: [], trackingPositions: [], pushRegistrations: new Map() },
  };
  data.operators.set(operatorId, operator);
  // Seven days run from two days back to four ahead; fewer keep the most recent of those.
  const first = rideDays >= 3 ? -2 : 0;
  for (let offset = first; offset < first + rideDays; offset++) {
    const rides = rng.int(1, 2);
    for (let n = 0; n < rides; n++)
      addRide(data, operator, rng, data.anchor + offset * day + (6 + 5 * n) * 60 * minute);
  }
  addUnassignedTasks(data, operator, rng);
  for (const message of chatHistory(data, rng, operatorId)) operator.chat.set(message.id, message);
  return operator;
}

/** Deliveries not yet on a ride; the client of the first one cancelled it (so every status occurs). */
function addUnassignedTasks(data: DriverData, operator: OperatorData, rng: Rng): void {
  for (let n = rng.int(5, 12); n > 0; n--) {
    const plannedStart = data.anchor + rng.int(1, 4) * day + rng.int(7, 17) * 60 * minute;
    const status = n === 1 ? 'cancelled' : 'notStarted';
    addTask(data, operator, rng, {
      ...newOrder(data, rng),
      type: unloadType,
      status,
      plannedStart,
      ride: null,
    });
  }
}

function addRide(data: DriverData, operator: OperatorData, rng: Rng, start: number): void {
  const now = data.anchor + day / 2;
  const status: Ride['status'] =
    start + 10 * 60 * minute < data.anchor ? 'ended' : start < now ? 'started' : 'planned';
  const ride: Ride = {
    id: data.ids.nextRide(),
    number: `R${iso(start).slice(2, 10).replaceAll('-', '')}-${operator.operatorId}-${operator.rides.size + 1}`,
    status,
    vehicleId: rng.pick(data.master.vehicles).id,
    trailerId: rng.chance(0.7) ? Number(rng.pick(data.master.trailers).id) : null,
    planned: { start: iso(start), end: null },
    actual: { start: status === 'planned' ? null : iso(start + rng.int(-5, 15) * minute), end: null },
    taskIds: [],
  };
  const types = [startType];
  for (let n = rng.int(3, 5); n > 0; n--)
    types.push(...(rng.chance(0.7) ? [loadType, unloadType] : [unloadType]));
  types.push(endType);
  const underWay = rng.int(1, types.length - 1);
  let order = newOrder(data, rng);
  const tasks: Task[] = types.map((type, index) => {
    const opensOrder = type === loadType || (type === unloadType && types[index - 1] !== loadType);
    // The first stop keeps the order the start task already has; the end task keeps the last one.
    if (opensOrder && index > 1) order = newOrder(data, rng);
    const plannedStart = start + index * 50 * minute;
    const taskStatus = statusInRide(rng, status, index, underWay, type.isStart || type.isEnd);
    const place = { id: ride.id, trailerId: ride.trailerId, index };
    return addTask(data, operator, rng, { ...order, type, status: taskStatus, plannedStart, ride: place });
  });
  ride.taskIds = tasks.map((task) => task.id);
  ride.planned.end = tasks.at(-1)!.planned.end;
  if (status === 'ended') ride.actual.end = tasks.at(-1)!.completion.when.end;
  operator.rides.set(ride.id, ride);
}

function statusInRide(
  rng: Rng,
  ride: Ride['status'],
  index: number,
  underWay: number,
  edge: boolean,
): Task['status'] {
  if (ride === 'ended') return !edge && rng.chance(0.08) ? 'cancelled' : 'completed';
  if (ride === 'planned') return 'notStarted';
  return index < underWay ? 'completed' : index === underWay ? 'started' : 'notStarted';
}

/** A new order for a random client: pickup and delivery tasks of one order share it. */
export function newOrder(data: DriverData, rng: Rng) {
  return { orderId: data.ids.next('order'), client: rng.pick(data.clients), product: rng.pick(products) };
}

function chatHistory(data: DriverData, rng: Rng, operatorId: string): ChatMessage[] {
  const planners = data.master.chatContacts.filter((contact) => contact.kind !== 'driver');
  const sentAt = Array.from(
    { length: rng.int(20, 60) },
    () => data.anchor - rng.int(1, 7 * 24 * 60) * minute,
  );
  return sentAt
    .sort((a, b) => a - b)
    .map((sent) => {
      const planner = rng.pick(planners).id;
      const inbound = rng.chance(0.6);
      const read = sent < data.anchor - day || rng.chance(0.5);
      return {
        id: data.ids.next('message'),
        fromId: inbound ? planner : operatorId,
        toId: inbound ? operatorId : planner,
        text: rng.pick(chatTexts),
        sentAt: iso(sent),
        readAt: read ? iso(sent + rng.int(1, 90) * minute) : null,
      };
    });
}

function colorProfiles(rng: Rng): ColorProfile[] {
  const brand = rng.pick(['#0b5394', '#38761d', '#990000', '#e69138']);
  const palette = (background: string, text: string) => ({
    primaryBackground: background,
    primaryText: text,
    secondaryBackground: brand,
    secondaryText: '#ffffff',
    highlight: '#f1c232',
  });
  const profiles = [
    { name: 'default', light: palette('#ffffff', '#202124'), dark: palette('#202124', '#e8eaed') },
  ];
  if (rng.chance(0.5))
    profiles.push({
      name: 'high-contrast',
      light: palette('#ffffff', '#000000'),
      dark: palette('#000000', '#ffffff'),
    });
  return profiles;
}
