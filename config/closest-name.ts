/**
 * The name of `known` that `typed` most likely meant: one equal but for case, `_` and `-`
 * (`page_limit` for `pageLimit`), else the nearest within a small edit distance (`inclde`,
 * `histroy`); undefined when none is near enough to be a guess worth printing.
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  const loose = looseName(typed);
  const same = known.find((name) => looseName(name) === loose);
  if (same !== undefined) return same;
  // A third of the name, at most 3 edits: "inclde" -> "include", not "x" -> "tms".
  const allowed = Math.min(3, Math.floor(typed.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(loose, looseName(name));
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** A name without case, `_` and `-`: how the same key is spelt in camelCase, snake_case and ENV_CASE. */
export const looseName = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Edits (insert, delete, replace, swap two neighbours) from one string to the other. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}
