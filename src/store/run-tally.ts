import type { RunTally, UpsertCounts } from './store-types.js';

export function emptyTally(): RunTally {
  return {
    pages: 0,
    records: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    older: 0,
    deleted: 0,
    drift: 0,
    held: 0,
    watermark: null,
  };
}

/** What one write adds to a run's counts. */
export type WriteCounts = Partial<UpsertCounts> & { drift?: number; deleted?: number; held?: number };

/** Adds a write's counts to the run's. */
export function addCounts(tally: RunTally, result: WriteCounts): void {
  tally.inserted += result.inserted ?? 0;
  tally.updated += result.updated ?? 0;
  tally.unchanged += result.unchanged ?? 0;
  tally.older += result.staleSkipped ?? 0;
  tally.drift += result.drift ?? 0;
  tally.deleted += result.deleted ?? 0;
  tally.held += result.held ?? 0;
}
