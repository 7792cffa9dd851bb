import { accessSync, constants, lstatSync, readlinkSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * What stops tms-sync from keeping a store at this SQLite path, as words that follow "the path",
 * or undefined when nothing does (a missing file is fine: it is created). A missing directory is
 * refused, except the default `./data`: a typo in a path would otherwise make a second, empty mirror.
 * Checked before SQLite opens it, whose own answers are "unable to open database file" for most of
 * these, or a silent read-only open that fails at the first write.
 */
export function sqlitePathProblem(path: string): string | undefined {
  if (path === ':memory:' || /^file:.*[?&]mode=memory\b/.test(path)) {
    return 'is an in-memory database, which keeps nothing: everything synced would vanish when the command ends; give a file path';
  }
  const link = statOf(path, lstatSync);
  if (link?.isSymbolicLink() && !statOf(path, statSync)) {
    return `is a symbolic link to ${resolve(dirname(path), readlinkSync(path))}, which does not exist`;
  }
  const file = statOf(path, statSync);
  if (!file) return directoryProblem(dirname(path));
  if (file.isDirectory()) return 'is a directory, not a SQLite file';
  if (!file.isFile())
    return 'is not a regular file (a device, a pipe or a socket); give the path of a SQLite file';
  if (!allowed(path, constants.R_OK)) return 'cannot be read (file permissions)';
  if (!allowed(path, constants.W_OK)) return 'is read-only: tms-sync writes every page it syncs to the store';
  return directoryProblem(dirname(path));
}

function statOf(path: string, stat: (path: string) => Stats): Stats | undefined {
  try {
    return stat(path);
  } catch {
    return undefined;
  }
}

function allowed(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/** The one directory made when missing (sqlite-dialect.ts): the default STORE_URL's, `./data`. */
export function isDefaultDataDirectory(directory: string): boolean {
  return resolve(directory) === resolve('data');
}

/** A directory must exist (but `./data`) and take new files. */
function directoryProblem(directory: string): string | undefined {
  const stat = statOf(directory, statSync);
  if (!stat) {
    if (isDefaultDataDirectory(directory)) return undefined;
    return `is in ${resolve(directory)}, which does not exist: create it first (only ./data is made by tms-sync), or correct the path`;
  }
  if (!stat.isDirectory()) return `is under ${directory}, which is not a directory`;
  if (allowed(directory, constants.W_OK | constants.X_OK)) return undefined;
  return `is in ${directory}, where no file can be made (SQLite keeps its -wal and -shm files beside the store)`;
}
