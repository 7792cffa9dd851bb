import type { PageState, SyncState } from './store-types.js';
import type { StateTransition } from './sync-state.js';

/**
 * A run's view of its partition's state: as the run found it, then as its own commits left it.
 * Every commit is a compare-and-set on the version the previous commit leaves, so a strategy never
 * predicts version numbers. A dry run writes no state: it asks for no transition.
 */
export class RunState {
  #state: SyncState;
  #version: number;
  readonly #writes: boolean;

  constructor(found: SyncState, options: { readonly writes: boolean }) {
    this.#state = found;
    this.#version = found.version;
    this.#writes = options.writes;
  }

  get current(): SyncState {
    return this.#state;
  }

  /** Where a page leaves the state: the last page of a cycle commits its `maxSequence` as the watermark. */
  ofPage(page: PageState): StateTransition | undefined {
    if ('watermark' in page)
      return this.#next({
        watermark: page.watermark,
        cursor: null,
        cycleMaxSequence: null,
        strategyState: null,
      });
    if ('checkpoint' in page) return this.#next(page.checkpoint);
    return this.#next({ strategyState: page.strategyState });
  }

  /** Forgets the cycle in progress (cursor, its `maxSequence`, strategy state); none when there is no checkpoint. */
  withoutCheckpoint(): StateTransition | undefined {
    if (this.#state.cursor === null) return undefined;
    return this.#next({ cursor: null, cycleMaxSequence: null, strategyState: null });
  }

  /** The state a commit's transition left. */
  committed(state: SyncState | undefined): void {
    if (state) this.#state = state;
  }

  #next(
    fields: Omit<StateTransition, 'stream' | 'partition' | 'expectedVersion'>,
  ): StateTransition | undefined {
    if (!this.#writes) return undefined;
    const { stream, partition } = this.#state;
    const expectedVersion = this.#version;
    this.#version += 1;
    return { stream, partition, expectedVersion, ...fields };
  }
}
