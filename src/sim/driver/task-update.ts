import { isDeepStrictEqual } from 'node:util';
import type { Task, TaskUpdate } from '../records/index.js';
import { SimHttpError } from '../sim-http-error.js';
import type { MasterData } from './driver-data.js';
import { unknownReference } from './validate-body.js';

type Status = Task['status'];

/** Task transitions (docs/api.md, States shows none; chosen here): completed and cancelled are final. */
const nextStatuses: Record<Status, readonly Status[]> = {
  notStarted: ['started', 'cancelled'],
  started: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

const conflict = (code: string, message: string, details: unknown) =>
  new SimHttpError(409, code, message, details);

/**
 * Merge-patch of a task: the fields sent replace, the rest stays. A status change stamps
 * `completion.when` unless the patch sets it. Repeating a patch gives the same state, so a patch that
 * changes nothing is accepted even on a closed task; any real change to a closed task is a 409.
 */
export function patchTask(task: Task, update: TaskUpdate, now: string, master: MasterData): Task {
  checkReferences(update, master);
  const status = update.status ?? task.status;
  if (status !== task.status && !nextStatuses[task.status].includes(status)) {
    throw conflict('invalid_transition', `a ${task.status} task cannot become ${status}`, {
      from: task.status,
      to: status,
    });
  }
  const completion = { ...task.completion, ...update.completion };
  if (status !== task.status && update.completion?.when === undefined) {
    completion.when =
      status === 'started' ? { start: now, end: null } : { start: completion.when.start ?? now, end: now };
  }
  const next: Task = {
    ...task,
    status,
    completion,
    referenceExternal: update.referenceExternal ?? task.referenceExternal,
  };
  if ((task.status === 'completed' || task.status === 'cancelled') && !isDeepStrictEqual(next, task)) {
    throw conflict('task_closed', `the task is ${task.status} and can no longer change`, {
      status: task.status,
    });
  }
  return next;
}

function checkReferences(update: TaskUpdate, master: MasterData): void {
  const statusId = update.completion?.completionStatusId;
  if (statusId != null && !master.completionStatuses.some((status) => status.id === statusId)) {
    throw unknownReference('completionStatusId', statusId);
  }
  for (const move of update.completion?.packagingTransactions ?? []) {
    if (!master.packaging.some((packaging) => packaging.id === move.packagingId)) {
      throw unknownReference('packagingId', move.packagingId);
    }
  }
}
