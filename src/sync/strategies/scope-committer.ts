import type { LeftParent, ParentBatch, PartitionRun, ScopeReplacement } from '../../store/store.js';

/** The largest group of scopes one transaction replaces. */
const maxGroup = 200;
/**
 * A group smaller than this waits up to `lingerMs` for more scopes before it commits (the end of
 * a pass never waits). Each commit is about ten statements sent to the store whatever its size;
 * committed at once, parents arriving one by one (16 requests in flight, a reply every 2 ms) made
 * a commit every two parents, and the main thread's work on commits delayed the replies (the
 * children rows of BENCHMARKS.md). A crash fetches again at most the parents of that wait.
 */
const minGroup = 100;
const lingerMs = 100;

/**
 * Commits a child stream's scopes as their parents' fetches finish: one transaction at a time,
 * each taking every scope that arrived while the one before was written (a group grows with the
 * store's latency; a small one first waits a moment for more, see `minGroup`). After a group commits, its
 * parents are settled in their batches: done, gone, or left with their error.
 */
export interface ScopeCommitter {
  /** A parent's complete children; resolves when there is room (the writes keep up with the fetches). */
  replace(batch: ParentBatch, scope: ScopeReplacement): Promise<void>;
  /** A parent gone upstream: its children are marked `parent_deleted`. */
  gone(batch: ParentBatch, parentId: string): void;
  /** A parent whose children could not be fetched. */
  leave(batch: ParentBatch, left: LeftParent): void;
  /** Throws the first failed commit. */
  check(): void;
  /** Waits until everything given is committed and settled; throws the first failed commit. */
  drain(): Promise<void>;
}

type Entry =
  | { readonly batch: ParentBatch; readonly kind: 'replace'; readonly scope: ScopeReplacement }
  | { readonly batch: ParentBatch; readonly kind: 'gone'; readonly parentId: string }
  | { readonly batch: ParentBatch; readonly kind: 'leave'; readonly left: LeftParent };

export function createScopeCommitter(run: PartitionRun): ScopeCommitter {
  const waiting: Entry[] = [];
  let writing: Promise<void> | undefined;
  let failure: { error: unknown } | undefined;
  /** Ends the current linger early: the group is big enough, or someone waits for the drain. */
  let stopLinger: (() => void) | undefined;
  let draining = 0;

  const linger = () =>
    waiting.length >= minGroup || draining > 0
      ? undefined
      : new Promise<void>((resolve) => {
          const timer = setTimeout(done, lingerMs);
          function done() {
            clearTimeout(timer);
            stopLinger = undefined;
            resolve();
          }
          stopLinger = done;
        });

  const check = () => {
    if (failure) throw failure.error;
  };

  function kick(): void {
    if (writing || failure || waiting.length === 0) return;
    writing = Promise.resolve(linger())
      .then(() => commit(waiting.splice(0, maxGroup)))
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => {
        writing = undefined;
        kick();
      });
  }

  async function commit(entries: readonly Entry[]): Promise<void> {
    const scopes = entries.flatMap((entry) => (entry.kind === 'replace' ? [entry.scope] : []));
    const gone = entries.flatMap((entry) => (entry.kind === 'gone' ? [entry.parentId] : []));
    await run.markScopesDeleted(gone);
    if (scopes.length > 0) await run.replaceScopes(scopes);
    for (const [batch, settled] of byBatch(entries)) {
      const done = settled.flatMap((entry) => (entry.kind === 'leave' ? [] : [parentOf(entry)]));
      const left = settled.flatMap((entry) => (entry.kind === 'leave' ? [entry.left] : []));
      if (done.length > 0) await batch.done(done);
      if (left.length > 0) await batch.leave(left);
    }
  }

  const add = (entry: Entry) => {
    check();
    waiting.push(entry);
    if (waiting.length >= minGroup) stopLinger?.();
    kick();
  };

  return {
    async replace(batch, scope) {
      add({ batch, kind: 'replace', scope });
      while (waiting.length >= 2 * maxGroup && writing) await writing;
      check();
    },
    gone: (batch, parentId) => add({ batch, kind: 'gone', parentId }),
    leave: (batch, left) => add({ batch, kind: 'leave', left }),
    check,
    async drain() {
      draining += 1;
      stopLinger?.();
      try {
        while (writing) await writing;
      } finally {
        draining -= 1;
      }
      check();
    },
  };
}

function parentOf(entry: Exclude<Entry, { kind: 'leave' }>): string {
  return entry.kind === 'replace' ? entry.scope.scope : entry.parentId;
}

function byBatch(entries: readonly Entry[]): Map<ParentBatch, Entry[]> {
  const groups = new Map<ParentBatch, Entry[]>();
  for (const entry of entries) {
    const group = groups.get(entry.batch) ?? [];
    group.push(entry);
    groups.set(entry.batch, group);
  }
  return groups;
}
