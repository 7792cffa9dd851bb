import { advanceRefreshAll } from './child-queue.js';
import type { RunWrite } from './transaction.js';

/**
 * Where a refresh-all pass stands: parents settle in any order (fetched at once), but the mark
 * moves only past the longest run of settled parents from the start, so a crash never skips a
 * parent and repeats at most the ones that were in flight.
 */
export class RefreshAllProgress {
  readonly #order: string[] = [];
  readonly #settled = new Set<string>();
  readonly #batches = new Set<readonly string[]>();
  #advancing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: RunWrite,
    private readonly child: string,
  ) {}

  begin(parents: readonly string[]): void {
    this.#batches.add(parents);
    this.#order.push(...parents);
  }

  /** Counts `ids` of the batch `parents` as settled, and moves the mark past the settled prefix. */
  async settled(parents: readonly string[], ids: readonly string[]): Promise<void> {
    if (!this.#batches.has(parents)) return;
    for (const id of ids) this.#settled.add(id);
    let last: string | undefined;
    while (this.#order.length > 0 && this.#settled.has(this.#order[0]!)) {
      last = this.#order.shift();
      this.#settled.delete(last!);
    }
    if (last === undefined) return;
    const afterId = last;
    this.#advancing = this.#advancing.then(() => this.#advance(afterId));
    await this.#advancing;
  }

  async end(): Promise<void> {
    await this.#advancing;
    await this.#advance(undefined);
  }

  #advance(afterId: string | undefined): Promise<void> {
    return this.write('advanceRefreshAll', (db) => advanceRefreshAll(db, this.child, afterId));
  }
}
