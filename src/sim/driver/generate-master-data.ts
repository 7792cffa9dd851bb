import type { ChatContact, Questionnaire, TaskType } from '../records/index.js';
import type { MasterData } from './driver-data.js';
import type { DriverIds } from './driver-ids.js';
import type { Rng } from './rng.js';
import { firstNames, lastNames } from './sample-values.js';

/** The version GET /driver-api/settings/version answers (docs/api.md, Versions). */
export const tmsVersion = '2.0.70';

/** Task types (not a stream of their own: they appear inside every task). */
export const taskTypes: readonly TaskType[] = [
  { id: '1', code: 'START', name: 'Start of ride', isStart: true, isEnd: false, activityId: 1 },
  { id: '2', code: 'LOAD', name: 'Pickup', isStart: false, isEnd: false, activityId: 2 },
  { id: '3', code: 'UNLOAD', name: 'Delivery', isStart: false, isEnd: false, activityId: 3 },
  { id: '4', code: 'END', name: 'End of ride', isStart: false, isEnd: true, activityId: 1 },
];

// A 1x1 PNG: logos only need to be valid images, not pretty ones.
const pixelPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Global master data: the same for every operator, depending on the seed and operator count only. */
export function generateMasterData(rng: Rng, ids: DriverIds, operatorIds: readonly string[]): MasterData {
  return {
    vehicles: Array.from({ length: 12 }, (_, i) => ({
      id: ids.next('vehicle'),
      licensePlate: `${rng.int(10, 99)}-B${String.fromCharCode(65 + i)}${String.fromCharCode(75 + rng.int(0, 14))}-${rng.int(1, 9)}`,
      name: `${rng.pick(['DAF XF 480', 'Scania R450', 'Volvo FH 500', 'MAN TGX 18.470'])} #${i + 1}`,
      fuelType: rng.pick(['diesel', 'diesel', 'diesel', 'lng', 'electric']),
    })),
    trailers: Array.from({ length: 8 }, (_, i) => ({
      id: String(301 + i),
      licensePlate: `O${String.fromCharCode(65 + i)}-${rng.int(10, 99)}-${rng.int(10, 99)}`,
    })),
    traceTypes: [
      { id: '1', name: 'Loaded', percentage: 100, color: 0x2e7d32 },
      { id: '2', name: 'Delivered', percentage: 100, color: 0x1565c0 },
      { id: '3', name: 'Damaged', percentage: 100, color: 0xef6c00 },
      { id: '4', name: 'Missing', percentage: 0, color: 0xc62828 },
      { id: '5', name: 'Return', percentage: 100, color: 0x6a1b9a },
      { id: '6', name: 'Extra', percentage: 100, color: 0x00838f },
    ],
    returnTraceTypeIds: new Set(['5']),
    packaging: [
      { name: 'Euro pallet', code: 'EUR', isCarrier: true },
      { name: 'Block pallet', code: 'BLOK', isCarrier: true },
      { name: 'Roll container', code: 'RC', isCarrier: true },
      { name: 'Plastic crate', code: 'KRAT', isCarrier: false },
      { name: 'Carton box', code: 'DOOS', isCarrier: false },
    ].map((p) => ({ id: ids.next('packaging'), ...p })),
    completionStatuses: [
      { id: 1, name: 'Completed', code: 'OK', isSuccess: true },
      { id: 2, name: 'Completed with damage', code: 'DAMAGE', isSuccess: true },
      { id: 3, name: 'Partially completed', code: 'PARTIAL', isSuccess: true },
      { id: 4, name: 'Refused by client', code: 'REFUSED', isSuccess: false },
      { id: 5, name: 'Nobody present', code: 'ABSENT', isSuccess: false },
    ],
    activities: [
      { id: 1, name: 'Driving', code: 'DRIVE', mobileEnabled: true },
      { id: 2, name: 'Loading', code: 'LOAD', mobileEnabled: true },
      { id: 3, name: 'Unloading', code: 'UNLOAD', mobileEnabled: true },
      { id: 4, name: 'Waiting', code: 'WAIT', mobileEnabled: true },
      { id: 5, name: 'Break', code: 'BREAK', mobileEnabled: true },
      { id: 6, name: 'Refueling', code: 'FUEL', mobileEnabled: true },
      { id: 7, name: 'Workshop', code: 'SHOP', mobileEnabled: false },
      { id: 8, name: 'Office work', code: 'OFFICE', mobileEnabled: false },
    ],
    driverContacts: [
      { id: '1', name: 'Planning desk', phone: '+31 10 744 2000', role: 'planning' },
      { id: '2', name: 'Workshop', phone: '+31 10 744 2090', role: 'workshop' },
      { id: '3', name: 'Breakdown service', phone: '+31 88 269 2888', role: 'breakdown' },
      { id: '4', name: 'Night dispatcher', phone: '+31 6 5123 4400', role: 'planning' },
      { id: '5', name: 'Emergency', phone: '112', role: 'emergency' },
    ],
    chatContacts: chatContacts(rng, operatorIds),
    questionnaires: questionnaires(ids),
    logos: [1, 2, 3].map((id) => ({ id, mediaType: 'image/png', dataBase64: pixelPng })),
    version: { version: tmsVersion, apiVersion: tmsVersion },
  };
}

function chatContacts(rng: Rng, operatorIds: readonly string[]): ChatContact[] {
  const person = () => `${rng.pick(firstNames)} ${rng.pick(lastNames)}`;
  return [
    ...[501, 502, 503].map((id) => ({
      id: String(id),
      name: `${person()} (planning)`,
      kind: 'planner' as const,
    })),
    { id: '601', name: 'All drivers', kind: 'group' },
    ...operatorIds.map((id) => ({ id, name: person(), kind: 'driver' as const })),
  ];
}

const question = (key: string, text: string, answerType: string, required = true) => ({
  key,
  text,
  answerType,
  required,
});

function questionnaires(ids: DriverIds): Questionnaire[] {
  const vehicleCheck = ids.next('questionnaire');
  const damage = ids.next('questionnaire');
  const feedback = ids.next('questionnaire');
  const tyres = question('tyres', 'Tyres in order?', 'boolean');
  const lights = question('lights', 'Lights in order?', 'boolean');
  return [
    { id: vehicleCheck, name: 'Vehicle check', version: 1, questions: [tyres] },
    { id: vehicleCheck, name: 'Vehicle check', version: 2, questions: [tyres, lights] },
    {
      id: vehicleCheck,
      name: 'Vehicle check',
      version: 3,
      questions: [tyres, lights, question('remarks', 'Remarks', 'text', false)],
    },
    {
      id: damage,
      name: 'Damage report',
      version: 1,
      questions: [question('what', 'What is damaged?', 'text')],
    },
    {
      id: damage,
      name: 'Damage report',
      version: 2,
      questions: [question('what', 'What is damaged?', 'text'), question('photo', 'Photo taken?', 'boolean')],
    },
    {
      id: feedback,
      name: 'Delivery feedback',
      version: 1,
      questions: [question('rating', 'Rating 1-5', 'number')],
    },
  ];
}
