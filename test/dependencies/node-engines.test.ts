import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

const declared: string = readJson('package.json').engines.node;
const locked = readJson('package-lock.json').packages as Record<
  string,
  { version?: string; engines?: { node?: string } | string[] }
>;

/** The Node lines we promise to run on (package.json `engines`, docs/dependencies.md): the oldest release of each our range admits. */
const supportedLines = [20, 22, 24];

function oldestOf(line: number): string {
  const oldest = declared
    .split('||')
    .map((part) => semver.minVersion(`${part.trim()} ${line}.x`))
    .filter((version): version is semver.SemVer => version !== null && semver.satisfies(version, `${line}.x`))
    .sort(semver.compare)[0];
  if (!oldest) throw new Error(`package.json engines.node "${declared}" admits no Node ${line}`);
  return oldest.version;
}

describe('the Node versions package.json declares', () => {
  const probes = [...supportedLines.map(oldestOf), process.versions.node];

  it('include the Node that runs the tests', () => {
    expect(semver.satisfies(process.versions.node, declared)).toBe(true);
  });

  // A package whose engines exclude a version we declare fails there, often at start-up
  // (an ESM-only package loaded with require() before Node 20.19): pin one that runs on it instead.
  it.each(probes)('satisfy every locked package on Node %s', (version) => {
    const refusing = Object.entries(locked).flatMap(([location, pkg]) => {
      const range = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
      if (location === '' || range === undefined) return [];
      return semver.satisfies(version, range) ? [] : [`${location}@${pkg.version}: node ${range}`];
    });
    expect(refusing).toEqual([]);
  });
});
