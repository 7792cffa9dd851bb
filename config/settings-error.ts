import { permanent, TmsSyncError } from '../src/tms-sync-error.js';

/** Invalid configuration: names the setting (env var or config-file path) and what is wrong. Exit code 2. */
export class SettingsError extends TmsSyncError {
  readonly code = 'SETTINGS_INVALID';
  readonly retry = permanent;
  override get preventsStart(): boolean {
    return true;
  }

  constructor(
    readonly setting: string,
    readonly problem: string,
  ) {
    super(`invalid configuration: ${setting}: ${problem}`);
  }
}
