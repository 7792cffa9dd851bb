import type { CommandOutbox } from '../store/outbox/outbox-types.js';

/**
 * The outboxes among `outboxes` that have work for a delivery pass now: one statement for all the
 * outboxes of one PostgreSQL database (each in its schema), one per other outbox. An outbox that
 * cannot be asked (its store away) is left out, and `onError` told.
 */
export async function dueOutboxes<T extends { readonly outbox: CommandOutbox }>(
  entries: readonly T[],
  now: Date,
  onError: (entries: readonly T[], error: unknown) => void,
): Promise<T[]> {
  const byDatabase = new Map<string, T[]>();
  const alone: T[] = [];
  for (const entry of entries) {
    const shared = entry.outbox.sharedDatabase;
    if (shared === undefined) alone.push(entry);
    else {
      const group = byDatabase.get(shared.database);
      if (group) group.push(entry);
      else byDatabase.set(shared.database, [entry]);
    }
  }
  const asked = await Promise.all([
    ...[...byDatabase.values()].map(async (group) => {
      const schemaOf = (entry: T) => entry.outbox.sharedDatabase!.schema;
      try {
        const due = await group[0]!.outbox.sharedDatabase!.dueAmong(group.map(schemaOf), now);
        return group.filter((entry) => due.has(schemaOf(entry)));
      } catch (error) {
        onError(group, error);
        return [];
      }
    }),
    ...alone.map(async (entry) => {
      try {
        return (await entry.outbox.due(now)) ? [entry] : [];
      } catch (error) {
        onError([entry], error);
        return [];
      }
    }),
  ]);
  return asked.flat();
}
