import { StreamUsageError } from './store-errors.js';

/**
 * Which stream tables a store holds: the selected streams' and those an earlier run made
 * (migrate-store.ts). A stream run outside the selection (named on the command line, triggered)
 * gets its table when its first run opens, not before.
 */
export interface StreamPresence {
  /** The streams whose tables the migrations make; grows as streams are run outside it. */
  readonly selected: Set<string> | undefined;
  /** Throws StreamUsageError for a stream whose table the store does not hold. */
  check(stream: string): void;
  /** What the latest migration left (every stream table there is). */
  update(present: readonly string[]): void;
  /** Makes the stream's table unless the store holds it: selects it and migrates again. */
  ensure(stream: string, migrate: () => Promise<unknown>): Promise<void>;
}

/** `selected` undefined: every stream of the catalogue (stores opened without a selection). */
export function createStreamPresence(selected: readonly string[] | undefined): StreamPresence {
  const chosen = selected === undefined ? undefined : new Set(selected);
  // Unknown until a migration ran (a store opened without migrating): nothing is refused then.
  let present: Set<string> | undefined;
  const making = new Map<string, Promise<void>>();
  return {
    selected: chosen,
    check(stream) {
      if (present === undefined || present.has(stream)) return;
      throw new StreamUsageError(
        stream,
        'has no table in this store: it was never selected (streams.include) nor run; sync it once to make it',
      );
    },
    update(tables) {
      present = new Set(tables);
    },
    async ensure(stream, migrate) {
      if (present === undefined || present.has(stream)) return;
      let pending = making.get(stream);
      if (!pending) {
        chosen?.add(stream);
        pending = migrate().then(() => undefined);
        making.set(stream, pending);
      }
      await pending.finally(() => making.delete(stream));
    },
  };
}
