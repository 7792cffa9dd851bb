import { toList } from '../list-setting.js';
import type { Settings } from '../settings.js';
import { streamSelection } from '../stream-selection.js';
import { destinationOf } from './connection-destination.js';

/**
 * The settings of the connection `name` (an entry of `connections`) before its tokens are read:
 * the entry over the default connection's settings. Inherited: the base URL, the login path, the
 * stream selection, schedules, the sync tuning and the TMS allowance (a group the entry sets is
 * merged key by key), the sequence field. Its own: the tokens (references, as written), the
 * operators (ids of its account: none unless listed) and the destination (connection-destination.ts).
 * Fleet settings (Redis, ops server, log level, write-back delivery) are the default's, and the
 * queue is the default's name suffixed `.<name>`, so no Redis key of one connection is another's.
 */
export function connectionShape(settings: Settings, name: string): Settings {
  const entry = settings.connections[name]!;
  return {
    ...settings,
    connection: name,
    baseUrl: entry.baseUrl ?? settings.baseUrl,
    apiToken: entry.apiToken,
    driverToken: entry.driverToken,
    loginPath: entry.loginPath ?? settings.loginPath,
    operators: toList(entry.operators ?? []),
    sequenceField: entry.sequenceField ?? settings.sequenceField,
    ...destinationOf(name, entry, settings),
    sync: { ...settings.sync, ...entry.sync },
    tms: { ...settings.tms, ...entry.tms },
    streams: entry.streams === undefined ? settings.streams : streamSelection(entry.streams),
    schedule: entry.schedule ?? settings.schedule,
    streamSchedules: entry.streamSchedules ?? settings.streamSchedules,
    reconcileSchedule: entry.reconcileSchedule ?? settings.reconcileSchedule,
    streamReconcileSchedules: entry.streamReconcileSchedules ?? settings.streamReconcileSchedules,
    worker: { ...settings.worker, queueName: connectionQueueName(settings.worker.queueName, name) },
  };
}

/** The queue of a connection: the default connection keeps the configured name, and so its Redis state. */
export function connectionQueueName(queueName: string, connection: string): string {
  return `${queueName}.${connection}`;
}

/** Whether the worker leaves the connection alone (`paused: true` in its entry); the default never is. */
export const isPaused = (settings: Settings, name: string): boolean =>
  settings.connections[name]?.paused === true;
