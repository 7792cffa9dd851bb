import { liveInScope, liveInScopes } from './mark-missing.js';
import type { StoreContext } from './store-context.js';
import type { SyncState } from './store-types.js';
import type { StreamTable } from './stream-tables.js';
import { everCommitted, readState, readStates, stateVersion, stateVersions } from './sync-state.js';

/** A scope's live rows and the deletes the guard holds of it. */
export interface ScopeCounts {
  readonly live: number;
  readonly held: number;
}

/**
 * What the runs of one plan of many partitions (`tms-sync sync`, sync-engine.ts `run`) read once
 * per stream instead of once per partition: a keyed read is cheap, but an idle cycle at 500
 * operators made ~13,500 of them, ~0.7 s of its main thread's ~4 s (docs/performance-history.md,
 * "2026-11-28 (plan reads)").
 *
 * - Its own state, as a run opens: the states of the stream's planned partitions, read when the
 *   first of them opens. Only a partition's own run writes its state, and it has not started.
 * - Its scope's live rows, as an unchanged pass checks them (a scope that is its partition, the
 *   operator's): the counts of every planned scope of the stream, read at the first check. Only
 *   the scope's own run writes its rows: it asks before its first write, or reads its own count
 *   afresh (`PartitionRun`).
 * - The state of a stream it reads from (its version, whether it ever committed): read once every
 *   planned partition of that stream has ended (`ended`), when nothing of the plan writes it any more.
 * Anything else (a partition outside the plan, a stream still running) is read by its key, as a run
 * alone reads it. Another process writing the same partitions meanwhile is what the state's
 * compare-and-set refuses anyway; the worker's runs, one per job, never share a plan.
 */
export class PlanReads {
  readonly #context: StoreContext;
  /** The plan's partitions of each stream, and how many of them have not ended. */
  readonly #planned: ReadonlyMap<string, readonly string[]>;
  readonly #plannedSets = new Map<string, ReadonlySet<string>>();
  readonly #unended = new Map<string, number>();
  readonly #own = new Map<string, Promise<Map<string, SyncState>>>();
  readonly #ended = new Map<string, Promise<Map<string, number>>>();
  readonly #live = new Map<string, Promise<Map<string, ScopeCounts>>>();

  constructor(context: StoreContext, planned: ReadonlyMap<string, readonly string[]>) {
    this.#context = context;
    this.#planned = planned;
    for (const [stream, partitions] of planned) {
      this.#plannedSets.set(stream, new Set(partitions));
      this.#unended.set(stream, partitions.length);
    }
  }

  /** Tells that one planned partition of the stream ended (ran, or was skipped). */
  ended(stream: string): void {
    const left = this.#unended.get(stream);
    if (left !== undefined) this.#unended.set(stream, left - 1);
  }

  /** The partition's committed state, for its run to open with. */
  async state(stream: string, partition: string): Promise<SyncState> {
    if (this.#isPlanned(stream, partition)) {
      // A partition's run takes its state once: the plan keeps none it no longer needs.
      const states = await this.#states(stream);
      const state = states.get(partition);
      states.delete(partition);
      if (state) return state;
    }
    const { db, types } = this.#context.dialect;
    return this.#context.retry('readState', () => readState(db, types, stream, partition));
  }

  /** `Store.everCommitted` of a stream a run reads from. */
  async everCommitted(stream: string, partition?: string): Promise<boolean> {
    if (partition !== undefined && this.#hasEnded(stream, partition))
      return (await this.#versions(stream)).get(partition)! > 0;
    const { db } = this.#context.dialect;
    return this.#context.retry('everCommitted', () => everCommitted(db, stream, partition));
  }

  /** The state version of a partition of a stream a run reads from. */
  async version(stream: string, partition: string): Promise<number> {
    if (this.#hasEnded(stream, partition)) return (await this.#versions(stream)).get(partition)!;
    const { db } = this.#context.dialect;
    return this.#context.retry('stateVersion', () => stateVersion(db, stream, partition));
  }

  /** The live rows of the scope, for a run that has not written yet. */
  async live(stream: string, table: StreamTable, scope: string | undefined): Promise<ScopeCounts> {
    if (scope === undefined || table.scopeColumn === null || !this.#isPlanned(stream, scope)) {
      const input = { stream, scope };
      return this.#context.retry('liveInScope', () => liveInScope(this.#context, table, input));
    }
    const counts = await once(this.#live, stream, () => {
      const input = { stream, scopes: this.#planned.get(stream)! };
      return this.#context.retry('liveInScopes', () => liveInScopes(this.#context, table, input));
    });
    return counts.get(scope)!;
  }

  #isPlanned(stream: string, partition: string): boolean {
    return this.#plannedSets.get(stream)?.has(partition) ?? false;
  }

  #hasEnded(stream: string, partition: string): boolean {
    return this.#unended.get(stream) === 0 && this.#isPlanned(stream, partition);
  }

  #states(stream: string): Promise<Map<string, SyncState>> {
    return once(this.#own, stream, () => {
      const { db, types } = this.#context.dialect;
      const partitions = this.#planned.get(stream)!;
      return this.#context.retry('readStates', () => readStates(db, types, stream, partitions));
    });
  }

  /** The state versions of an ended stream's planned partitions (no state decoded). */
  #versions(stream: string): Promise<Map<string, number>> {
    return once(this.#ended, stream, () => {
      const { db } = this.#context.dialect;
      const partitions = this.#planned.get(stream)!;
      return this.#context.retry('stateVersions', () => stateVersions(db, stream, partitions));
    });
  }
}

/** The read kept under `key`, made at the first ask; a failed one is not kept: the next ask reads again. */
function once<T>(cache: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
  let found = cache.get(key);
  if (!found) {
    found = read();
    found.catch(() => cache.delete(key));
    cache.set(key, found);
  }
  return found;
}
