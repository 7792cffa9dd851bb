import { rmSync } from 'node:fs';

/** Removes a SQLite file and its WAL companions. */
export function removeSqlite(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}
