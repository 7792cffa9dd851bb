import type {
  Task,
  TaskAddress,
  TaskClient,
  TaskCompletion,
  TaskSettings,
  TaskType,
} from '../records/index.js';
import type { MasterData } from './driver-data.js';
import type { Rng } from './rng.js';
import { cities, firstNames, instructions, lastNames, type products, streets } from './sample-values.js';

/** Everything a task refers to, decided by the caller (operator data generator or a random change). */
export interface TaskSpec {
  id: string;
  index: number;
  type: TaskType;
  status: Task['status'];
  plannedStart: number;
  client: TaskClient;
  orderId: string;
  product: (typeof products)[number];
  rideId: number | null;
  trailerId: number | null;
  goodIds: string[];
}

const minute = 60_000;
const dialCodes: Record<string, string> = { NL: '+31', BE: '+32', DE: '+49' };
const iso = (ms: number) => new Date(ms).toISOString();
const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** A full task record (docs/api.md, Records) with every field filled plausibly for its type and status. */
export function generateTask(rng: Rng, master: MasterData, spec: TaskSpec): Task {
  const plannedEnd = spec.plannedStart + rng.int(2, 9) * 10 * minute;
  const isStop = !spec.type.isStart && !spec.type.isEnd;
  const address = generateAddress(rng, isStop ? spec.client.name : 'Depot');
  const { location } = address;
  const cashOnDelivery = spec.type.code === 'UNLOAD' && rng.chance(0.15) ? rng.int(50, 900) + 0.5 : 0;
  return {
    id: spec.id,
    index: spec.index,
    rideId: spec.rideId,
    trailerId: spec.trailerId,
    requested: isStop
      ? { start: iso(spec.plannedStart - 60 * minute), end: iso(plannedEnd + 120 * minute) }
      : { start: null, end: null },
    planned: { start: iso(spec.plannedStart), end: iso(plannedEnd) },
    type: spec.type,
    cashOnDelivery,
    client: spec.client,
    address,
    siteLocation: { ...location, latitude: round(location.latitude + 0.0004, 6) },
    completion: completion(rng, master, spec, plannedEnd, location),
    status: spec.status,
    instructions: rng.pick(instructions),
    information: isStop ? `${spec.goodIds.length} colli` : '',
    referenceInternal: `ORD-${spec.orderId}`,
    referenceExternal: isStop ? `PO${rng.int(100000, 999999)}` : '',
    goods: spec.goodIds.map((id) => ({ id })),
    order: { product: spec.product, categories: spec.client.categories.join(','), id: spec.orderId },
    taskSettings: taskSettings(rng, master, spec, { plannedEnd, cash: cashOnDelivery > 0 }),
    goodSettings: {
      canEditAmount: isStop,
      canEditPackaging: spec.type.code === 'LOAD',
      defaultTraceTypeId: isStop ? (spec.type.code === 'LOAD' ? 1 : 2) : null,
      alternativeTraceTypeIds: { capacity: 4, count: isStop ? 2 : 0 },
    },
  };
}

function generateAddress(rng: Rng, name: string): TaskAddress {
  const city = rng.pick(cities);
  const dial = dialCodes[city.country.code];
  return {
    name,
    contact: `${rng.pick(firstNames)} ${rng.pick(lastNames)}`,
    street: rng.pick(streets),
    houseNumber: String(rng.int(1, 240)),
    postalCode: `${city.postalCode}${city.country.code === 'NL' ? ` ${rng.pick(['AB', 'CK', 'LM', 'RT'])}` : ''}`,
    premise: rng.chance(0.3) ? `Hall ${rng.int(1, 6)}` : '',
    city: city.name,
    country: city.country,
    phone: `${dial} ${rng.int(10, 79)} ${rng.int(100, 999)} ${rng.int(1000, 9999)}`,
    mobile: `${dial} ${rng.int(150, 179)} ${rng.int(1000, 9999)} ${rng.int(100, 999)}`,
    annotation: rng.chance(0.2) ? 'Closed between 12:00 and 13:00' : '',
    // `number` is not explained by docs/api.md; it is filled as the geocoding precision in metres.
    location: {
      latitude: round(city.latitude + (rng.next() - 0.5) * 0.08, 6),
      longitude: round(city.longitude + (rng.next() - 0.5) * 0.12, 6),
      number: rng.int(1, 25),
    },
  };
}

function completion(
  rng: Rng,
  master: MasterData,
  spec: TaskSpec,
  plannedEnd: number,
  location: { latitude: number; longitude: number },
): TaskCompletion {
  const done = spec.status === 'completed' || spec.status === 'cancelled';
  const started = done || spec.status === 'started';
  const status = spec.status === 'cancelled' ? rng.pick([4, 5]) : rng.pick([1, 1, 1, 2, 3]);
  return {
    when: {
      start: started ? iso(spec.plannedStart + rng.int(-10, 20) * minute) : null,
      end: done ? iso(plannedEnd + rng.int(-5, 30) * minute) : null,
    },
    completionStatusId: done ? status : null,
    contactName: spec.status === 'completed' ? `${rng.pick(firstNames)} ${rng.pick(lastNames)}` : '',
    comments: done && rng.chance(0.3) ? 'Gate closed, waited 10 minutes.' : '',
    signature: spec.status === 'completed' ? `sig:${rng.int(1e8, 9e8).toString(16)}` : '',
    packagingTransactions:
      spec.status === 'completed' && rng.chance(0.5)
        ? [
            {
              packagingId: master.packaging[0]!.id,
              collected: rng.int(0, 6),
              delivered: rng.int(0, 6),
              id: `${spec.id}-pt1`,
            },
          ]
        : [],
    // Before completion the TMS reports 0/0 (the field is not nullable in docs/api.md, Records).
    location: done
      ? { latitude: location.latitude, longitude: location.longitude }
      : { latitude: 0, longitude: 0 },
  };
}

function taskSettings(
  rng: Rng,
  master: MasterData,
  spec: TaskSpec,
  { plannedEnd, cash }: { plannedEnd: number; cash: boolean },
): TaskSettings {
  const unload = spec.type.code === 'UNLOAD';
  const load = spec.type.code === 'LOAD';
  const flow: TaskSettings['flow'] = [];
  if (unload)
    flow.push(
      { action: 'enterContactName', isMandatory: true },
      { action: 'askForSignature', isMandatory: true },
    );
  if (load || unload) flow.push({ action: 'scanGoods', isMandatory: unload });
  if (load) flow.push({ action: 'registerPackagingTransactions', isMandatory: false });
  if (unload && rng.chance(0.3)) flow.push({ action: 'takePicture', isMandatory: false });
  if (cash) flow.push({ action: 'handleCashOnDelivery', isMandatory: true });
  return {
    canEditReference: load,
    hideAfterMinutes: rng.pick([30, 60, 240]),
    showPackagingBalancePerAddress: load || unload,
    showPackagingBalancePerClient: unload,
    canEditPackagingTransactions: load || unload,
    taskListTemplate: rng.pick(['compact', 'detailed']),
    contactNameMandatory: unload,
    signatureMandatory: unload,
    pictureMandatory: flow.some((step) => step.action === 'takePicture'),
    chooseCompletionStatusMandatory: unload,
    scanAllGoodsMandatory: unload,
    scanAllGoodsNonComplianceAction: unload ? rng.pick(['warn', 'block']) : 'continue',
    autoCompleteTaskWhenAllIsScanned: load && rng.chance(0.5),
    flow,
    logoId: rng.chance(0.6) ? rng.pick(master.logos).id : null,
    finalDeliveryDate: unload ? new Date(plannedEnd + 2 * 24 * 60 * minute).toISOString() : null,
  };
}
