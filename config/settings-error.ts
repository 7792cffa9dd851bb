/** Invalid configuration: names the setting (env var or config-file path) and what is wrong. Exit code 2. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';

  constructor(
    readonly setting: string,
    readonly problem: string,
  ) {
    super(`invalid configuration: ${setting}: ${problem}`);
  }
}
