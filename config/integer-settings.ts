import { SettingsError } from './settings-error.js';

/** Integer settings of one group: environment variable -> [key, min, max]. */
export type IntegerSettingTable<T> = Readonly<Record<string, readonly [keyof T, number, number]>>;

/** The integers of a group the environment sets, each checked; a bad one names its variable. */
export function integersFromEnvironment<T>(
  env: NodeJS.ProcessEnv,
  table: IntegerSettingTable<T>,
): Partial<T> {
  const out: Partial<Record<keyof T, number>> = {};
  for (const [name, [key, min, max]] of Object.entries(table)) {
    const value = env[name];
    if (value !== undefined && value !== '') out[key] = parseInteger(name, value, min, max);
  }
  return out as Partial<T>;
}

/** Checks the integers of a group as merged from defaults and the config file; names the variable. */
export function checkIntegers<T>(settings: T, table: IntegerSettingTable<T>): void {
  for (const [name, [key, min, max]] of Object.entries(table)) {
    parseInteger(name, String(settings[key]), min, max);
  }
}

// Decimal digits only: Number() would also take `0x50`, `1e3` and ` 12 `.
function parseInteger(setting: string, value: string, min: number, max: number): number {
  const number = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new SettingsError(setting, `expected an integer ${min}-${max}, got "${value}"`);
  }
  return number;
}
