import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

interface LockedPackage {
  readonly version?: string;
  readonly optionalDependencies?: Record<string, string>;
}

const lockfile = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};

/** Where node's resolution finds `name` from the package at `location` (its own node_modules, then up). */
function resolved(location: string, name: string): string | undefined {
  let at = location;
  for (;;) {
    const candidate = `${at === '' ? '' : `${at}/`}node_modules/${name}`;
    if (candidate in lockfile.packages) return candidate;
    if (at === '') return undefined;
    const parent = at.lastIndexOf('/node_modules/');
    at = parent === -1 ? '' : at.slice(0, parent);
  }
}

describe('the lockfile', () => {
  // npm ci keeps a placeholder for an optional dependency it could not fetch, then calls the
  // lockfile out of sync when that placeholder is not in it: every platform's binary must be there.
  it('records every optional dependency of every package, so npm ci accepts it on a clean clone', () => {
    const missing = Object.entries(lockfile.packages).flatMap(([location, locked]) =>
      Object.keys(locked.optionalDependencies ?? {})
        .filter((name) => resolved(location, name) === undefined)
        .map((name) => `${location || '(root)'} -> ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
