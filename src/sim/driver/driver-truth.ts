import type { RecordShapes } from '../records/record-shapes.js';
import type { ScopeTruth, StreamTruth } from '../stream-truth.js';
import type { DriverData, OperatorData } from './driver-data.js';
import {
  dossierFolder,
  listActivities,
  listChatMessages,
  listClientPackagingBalances,
  listGoods,
  listQuestionnaires,
  listTaskPackagingBalances,
  listTasks,
  planningOf,
  referencedClientIds,
  referencedGoodIds,
  referencedOrderIds,
} from './driver-listings.js';

// The Driver API has no soft deletes: a removed record simply vanishes from its listing. Records are
// replaced, never mutated (driver-data.ts), so a truth keeps showing the state it was taken in.
const scope = (records: readonly unknown[]): ScopeTruth => ({ records: [...records], deletedIds: [] });

/** Per-operator streams, read the way the stream catalogue (config/streams.ts) reads them. */
const operatorStreams: Record<string, (data: DriverData, operator: OperatorData) => readonly unknown[]> = {
  tasks: (_, operator) => listTasks(operator),
  rides: (_, operator) => [...operator.rides.values()],
  planning: (_, operator) => [planningOf(operator)],
  goods: (_, operator) => listGoods(operator, referencedGoodIds(operator)),
  task_packaging_balances: (_, operator) =>
    listTaskPackagingBalances(operator, new Set(listTasks(operator).map((task) => task.id))),
  client_packaging_balances: (data, operator) =>
    listClientPackagingBalances(data, referencedClientIds(operator)),
  chat_messages: (_, operator) => listChatMessages(operator),
  settings: (_, operator) => [operator.settings],
  color_profiles: (_, operator) => operator.colorProfiles,
  dossier_folders: (data, operator) =>
    [...referencedOrderIds(operator)].map((id) => dossierFolder(data, id)!),
};

/** Master data streams (scope ""); questionnaires as the catalogue reads them, with `latest=true`. */
const globalStreams: Record<string, (data: DriverData) => readonly unknown[]> = {
  vehicles: (data) => data.master.vehicles,
  trailers: (data) => data.master.trailers,
  trace_types: (data) => data.master.traceTypes,
  packaging: (data) => data.master.packaging,
  completion_statuses: (data) => data.master.completionStatuses,
  activities: (data) => listActivities(data.master),
  driver_contacts: (data) => data.master.driverContacts,
  chat_contacts: (data) => data.master.chatContacts,
  questionnaires: (data) => listQuestionnaires(data.master, true),
  tms_version: (data) => [data.master.version],
};

/** The truth of every Driver API stream: records exactly as the listings return them, in their shapes. */
export function driverTruth(data: DriverData, shapes: RecordShapes = (_, record) => record): StreamTruth {
  const truth: StreamTruth = {};
  const served = (stream: string, records: readonly unknown[]) =>
    scope(records.map((record) => shapes(stream, record as Record<string, unknown>)));
  for (const [stream, read] of Object.entries(operatorStreams)) {
    truth[stream] = Object.fromEntries(
      [...data.operators.values()].map((operator) => [
        operator.operatorId,
        served(stream, read(data, operator)),
      ]),
    );
  }
  for (const [stream, read] of Object.entries(globalStreams))
    truth[stream] = { '': served(stream, read(data)) };
  return truth;
}
