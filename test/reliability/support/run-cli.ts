import { execFile } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..', '..');
const cli = join(root, 'dist', 'tms-sync.js');

/** What one `tms-sync` run printed and how it ended. */
export interface CliResult {
  /** null when killed (e.g. by the timeout). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Another user to run as (from root): how a file's permissions look to an operator who is not root. */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/** Where and as whom the CLI runs. */
export interface RunCliOptions {
  /** @default the repository */
  readonly cwd?: string;
  /** @default the test's own user */
  readonly as?: RunAs;
}

/** Runs `node dist/tms-sync.js <args>` to its end with `env` on a clean environment; killed after `timeoutMs`. */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  { cwd = root, as }: RunCliOptions = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      {
        cwd,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        timeout: timeoutMs,
        ...as,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** What `verify` is asked: one connection's store against one account of a simulator of several. */
export interface VerifyConnection {
  readonly simUrl: string;
  readonly account: number;
  readonly connection: string;
  /** @default ['invoices'] */
  readonly streams?: readonly string[];
}

/** Runs `tms-sync verify` of a connection against its account: exit 0 when its store equals the account. */
export function verifyConnection(target: VerifyConnection, env: NodeJS.ProcessEnv): Promise<CliResult> {
  const { simUrl, account, connection, streams = ['invoices'] } = target;
  return runCli(
    ['verify', '--sim-url', simUrl, '--sim-account', String(account), '--connection', connection, ...streams],
    env,
  );
}
