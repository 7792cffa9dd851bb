import { isDeepStrictEqual } from 'node:util';
import type { Store, StoredVersion } from '../../../src/store/store.js';

/**
 * What must hold of history mode (docs/history.md) after any run of changes, faults, aborts and
 * crashes, for every record of the streams: its versions are contiguous (each `valid_to` is the
 * next `valid_from`, only the last is open), the open one equals the current row, and no two
 * versions back to back hold the same content (a version written twice, by a run resumed after a
 * crash, would be two such). Answers one line per breach.
 */
export async function historyDifferences(store: Store, streams: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const stream of streams) {
    for (const row of await store.readRows(stream)) {
      const key = row.scope === null ? { id: row.id } : { id: row.id, scope: row.scope };
      const name = `${stream} ${row.scope === null ? '' : `${row.scope}/`}${row.id}`;
      const versions = await store.history(stream, key);
      out.push(...versionDifferences(name, versions));
      const open = versions.at(-1);
      if (!open) continue;
      if (!isDeepStrictEqual(open.data, row.data))
        out.push(`${name}: the open version's data is not the row's`);
      if (open.deletedAt?.getTime() !== row.deletedAt?.getTime())
        out.push(`${name}: the open version's deleted_at is not the row's`);
    }
  }
  return out;
}

function versionDifferences(name: string, versions: readonly StoredVersion[]): string[] {
  if (versions.length === 0) return [`${name}: no version`];
  const out: string[] = [];
  if (versions[0]!.change !== 'insert') out.push(`${name}: the first version is no insert`);
  versions.forEach((version, index) => {
    const next = versions[index + 1];
    if (next === undefined) {
      if (version.validTo !== null) out.push(`${name}: the last version is closed`);
      return;
    }
    if (version.validTo?.getTime() !== next.validFrom.getTime())
      out.push(
        `${name}: version ${index} ends at ${version.validTo?.toISOString()}, the next begins at ${next.validFrom.toISOString()}`,
      );
    const live = (v: StoredVersion) => v.deletedAt === null;
    if (isDeepStrictEqual(version.data, next.data) && live(version) === live(next))
      out.push(`${name}: versions ${index} and ${index + 1} hold the same content`);
    if (next.change === 'insert')
      out.push(`${name}: version ${index + 1} is an insert after another version`);
  });
  return out;
}
