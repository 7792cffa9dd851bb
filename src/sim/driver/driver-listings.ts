import type {
  ChatMessage,
  ClientPackagingBalance,
  DossierFolder,
  Good,
  Planning,
  Questionnaire,
  Task,
  TaskPackagingBalance,
} from '../records/index.js';
import type { DriverData, MasterData, OperatorData, PackagingAmount } from './driver-data.js';

// What each Driver API listing returns, as pure functions of the data: the routes answer them and
// truth() is built from them, so the two cannot drift apart.

const pick = <T>(items: Iterable<T>, ids: ReadonlySet<string> | undefined, key: (item: T) => string): T[] =>
  [...items].filter((item) => ids === undefined || ids.has(key(item)));

export const listTasks = (operator: OperatorData, ids?: ReadonlySet<string>): Task[] =>
  pick(operator.tasks.values(), ids, (task) => task.id);

export const listGoods = (operator: OperatorData, ids: ReadonlySet<string>): Good[] =>
  pick(operator.goods.values(), ids, (good) => good.id);

/** The ids of the goods the operator's tasks reference, as the sync reads them. */
export const referencedGoodIds = (operator: OperatorData): Set<string> =>
  new Set(listTasks(operator).flatMap((task) => task.goods.map((good) => good.id)));

/** A task's balance: its opening balance plus what its packaging transactions delivered and collected. */
export function listTaskPackagingBalances(
  operator: OperatorData,
  ids: ReadonlySet<string>,
): TaskPackagingBalance[] {
  return listTasks(operator, ids).map((task) => {
    const amounts = new Map<string, number>();
    for (const opening of operator.taskOpeningBalances.get(task.id) ?? [])
      amounts.set(opening.packagingId, opening.balance);
    for (const move of task.completion.packagingTransactions) {
      amounts.set(move.packagingId, (amounts.get(move.packagingId) ?? 0) + move.delivered - move.collected);
    }
    const packagingBalances: PackagingAmount[] = [...amounts].map(([packagingId, balance]) => ({
      packagingId,
      balance,
    }));
    return { taskId: task.id, packagingBalances };
  });
}

/** Clients are shared: any known client id answers, whichever operator asks. */
export const listClientPackagingBalances = (
  data: DriverData,
  ids: ReadonlySet<string>,
): ClientPackagingBalance[] => pick(data.clientBalances.values(), ids, (balance) => balance.clientId);

export const referencedClientIds = (operator: OperatorData): Set<string> =>
  new Set(listTasks(operator).map((task) => task.client.id));

/** Messages of the operator with `sentAt` in [from, to), oldest first. */
export function listChatMessages(operator: OperatorData, from = -Infinity, to = Infinity): ChatMessage[] {
  return [...operator.chat.values()]
    .filter((message) => {
      const sent = Date.parse(message.sentAt);
      return sent >= from && sent < to;
    })
    .sort((a, b) => Date.parse(a.sentAt) - Date.parse(b.sentAt) || (a.id < b.id ? -1 : 1));
}

/** The open part of the plan: tasks not yet completed or cancelled, rides not ended, their goods. */
export function planningOf(operator: OperatorData): Planning {
  const tasks = listTasks(operator).filter(
    (task) => task.status === 'notStarted' || task.status === 'started',
  );
  const goodIds = new Set(tasks.flatMap((task) => task.goods.map((good) => good.id)));
  return {
    operatorId: operator.operatorId,
    generatedAt: operator.planningChangedAt,
    tasks,
    rides: [...operator.rides.values()].filter((ride) => ride.status !== 'ended'),
    goods: listGoods(operator, goodIds),
  };
}

/** The folder of an order, or undefined when no task ever referenced it. */
export function dossierFolder(data: DriverData, orderId: string): DossierFolder | undefined {
  const folder = data.dossiers.get(orderId);
  return folder && { orderId, files: [...folder.values()].map((stored) => stored.file) };
}

export const referencedOrderIds = (operator: OperatorData): Set<string> =>
  new Set(listTasks(operator).map((task) => task.order.id));

/** `latest=true`: the highest version of each questionnaire; `latest=false`: every version. */
export function listQuestionnaires(master: MasterData, latest: boolean): Questionnaire[] {
  if (!latest) return master.questionnaires;
  const newest = new Map<string, Questionnaire>();
  for (const questionnaire of master.questionnaires) {
    const seen = newest.get(questionnaire.id);
    if (!seen || seen.version < questionnaire.version) newest.set(questionnaire.id, questionnaire);
  }
  return [...newest.values()];
}

export const listActivities = (master: MasterData) =>
  master.activities.filter((activity) => activity.mobileEnabled);
