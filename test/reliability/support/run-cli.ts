import { execFile } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..', '..');
const cli = join(root, 'bin', 'tms-sync.js');

/** What one `tms-sync` run printed and how it ended. */
export interface CliResult {
  /** null when killed (e.g. by the timeout). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node bin/tms-sync.js <args>` to its end with `env` on a clean environment; killed after `timeoutMs`. */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
