import type { DeleteGuard, ScopeTally } from './store-types.js';

/**
 * The mass-delete guard (invariant 4), as a user should expect it: it stops what looks like a
 * broken server emptying a table, and never a normal change. A pass is judged by what it would
 * leave, not by how many rows it replaces: a scope whose rows are all replaced by new ones (an
 * invoice's lines after a merge-patch, a day's tasks) loses nothing on balance.
 */
export const defaultDeleteGuard: Required<DeleteGuard> = Object.freeze({
  maxShare: 0.5,
  minRows: 100,
  minScopes: 10,
  approveAll: false,
});

/** A scope's live rows before and after a pass, and how many the pass would mark deleted. */
export interface ScopeBalance {
  readonly scope: string;
  readonly before: number;
  readonly after: number;
  readonly missing: number;
}

export const noScopes: ScopeTally = Object.freeze({ hadRows: 0, emptied: 0 });

/** What a batch of child scopes adds to the run's tally. */
export function tallyOf(balances: readonly ScopeBalance[]): ScopeTally {
  const hadRows = balances.filter((balance) => balance.before > 0);
  return {
    hadRows: hadRows.length,
    emptied: hadRows.filter((balance) => balance.after === 0 && balance.missing > 0).length,
  };
}

/**
 * The scopes whose deletes are held back: each scope of at least `minRows` that would lose more
 * than `maxShare` on balance, and, for child scopes committed in batches (`earlier`: the run's
 * batches before this one), the scopes this batch would empty once the run's emptied scopes are
 * at least `minScopes` and more than `maxShare` of the run's scopes that had rows. Counting over
 * the run keeps the guard the same whatever the size of the batches.
 */
export function heldScopes(
  balances: readonly ScopeBalance[],
  guard: DeleteGuard,
  earlier: ScopeTally | undefined,
): ScopeBalance[] {
  const { maxShare, minRows, minScopes, approveAll } = { ...defaultDeleteGuard, ...guard };
  if (approveAll) return [];
  const held = new Set<ScopeBalance>();
  for (const balance of balances) {
    const loss = balance.before - balance.after;
    if (balance.missing > 0 && balance.before >= minRows && loss > maxShare * balance.before)
      held.add(balance);
  }
  if (earlier) {
    const batch = tallyOf(balances);
    const emptied = earlier.emptied + batch.emptied;
    if (batch.emptied > 0 && emptied >= minScopes && emptied > maxShare * (earlier.hadRows + batch.hadRows)) {
      for (const balance of balances)
        if (balance.before > 0 && balance.after === 0 && balance.missing > 0) held.add(balance);
    }
  }
  return [...held];
}
