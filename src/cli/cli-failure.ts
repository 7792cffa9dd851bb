import { SettingsError } from '../../config/settings-error.js';
import { redactSecrets } from '../secrets/secret-registry.js';
import { UnknownStreamError } from '../sync/sync-errors.js';
import { TmsSyncError } from '../tms-sync-error.js';

/** Exit codes of every command: 0 success, 1 a stream or job failed, 2 bad usage or configuration. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

/** A command-line mistake the user must fix (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Errors of the configured store or Redis: the command cannot start (exit 2). */
const configurationCodes = new Set([
  'STORE_URL_INVALID',
  'STORE_UNREACHABLE',
  'MIGRATION_FAILED',
  'REDIS_UNREACHABLE',
]);

/**
 * Runs a command's action and turns what it throws into one clear line on stderr and the exit code:
 * 2 for configuration and usage, 1 for anything else. Every secret of the process is blanked in it.
 */
export async function runCommand(name: string, action: () => Promise<number | undefined>): Promise<void> {
  try {
    process.exitCode = (await action()) ?? exitCodes.ok;
  } catch (error) {
    const usage =
      error instanceof SettingsError ||
      error instanceof UsageError ||
      error instanceof UnknownStreamError ||
      (error instanceof TmsSyncError && configurationCodes.has(error.code));
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`tms-sync ${name}: ${redactSecrets(message)}\n`);
    process.exitCode = usage ? exitCodes.usage : exitCodes.failed;
  }
}
