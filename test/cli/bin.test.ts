import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const bundle = join(root, 'node_modules', '.cache', 'tms-sync', 'tms-sync.mjs');

function newestSource(): number {
  let newest = 0;
  for (const dir of ['src', 'config', 'schemas', 'jobs']) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

describe('bin/tms-sync.js', () => {
  it('runs a bundle of the current sources (rebuilt when a source is newer) and answers like the sources', () => {
    const bundled = execFileSync(process.execPath, [join(root, 'bin', 'tms-sync.js'), 'sync', '--help'], {
      encoding: 'utf8',
    });
    expect(statSync(bundle).mtimeMs).toBeGreaterThanOrEqual(newestSource());
    const fromSource = execFileSync(process.execPath, [join(root, 'bin', 'tms-sync.js'), 'sync', '--help'], {
      encoding: 'utf8',
      env: { ...process.env, TMS_SYNC_TSX: '1' },
    });
    expect(bundled).toContain('Usage: tms-sync sync');
    expect(bundled).toBe(fromSource);
  });
});
