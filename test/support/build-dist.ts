import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * vitest's global setup: builds dist/ (`npm run build`, a second or two) before any test runs, so
 * the tests that start the CLI, and the SQLite thread every test's store starts, run the code
 * under test, never an older build.
 */
export default function buildDist(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, '..', '..', 'scripts', 'build.mjs')], {
    stdio: 'inherit',
  });
}
