import { redactSecrets } from '../secrets/secret-registry.js';
import { errorSays, permanent, TmsSyncError } from '../tms-sync-error.js';

/** Exit codes of every command: 0 success, 1 a stream or job failed, 2 bad usage or configuration. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

/** A command-line mistake the user must fix (exit code 2). */
export class UsageError extends TmsSyncError {
  readonly code = 'USAGE';
  readonly retry = permanent;
  override get preventsStart(): boolean {
    return true;
  }
}

/**
 * Runs a command's action and turns what it throws into one clear line on stderr and the exit code:
 * 2 for configuration and usage, 1 for anything else. Every secret of the process is blanked in it.
 */
export async function runCommand(name: string, action: () => Promise<number | undefined>): Promise<void> {
  try {
    process.exitCode = (await action()) ?? exitCodes.ok;
  } catch (error) {
    const usage = errorSays(error, 'preventsStart');
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`tms-sync ${name}: ${redactSecrets(message)}\n`);
    process.exitCode = usage ? exitCodes.usage : exitCodes.failed;
  }
}
