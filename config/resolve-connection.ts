import { checkSettings } from './check-settings.js';
import { closestName } from './closest-name.js';
import { defaultConnectionName } from './connections/connection-name.js';
import { connectionShape } from './connections/connection-settings.js';
import { parseTokenReference, readTokenReference } from './connections/token-reference.js';
import { loadSettings } from './load-settings.js';
import { withSecretFiles } from './secret-files.js';
import type { Settings } from './settings.js';
import { SettingsError } from './settings-error.js';
import { registerSettingsSecrets } from './settings-secrets.js';

/** `--connection` named no connection the configuration has; `known` lists those it has. */
export class UnknownConnectionError extends SettingsError {
  constructor(
    readonly connection: string,
    readonly known: readonly string[],
  ) {
    const near = closestName(connection, known);
    super(
      '--connection',
      `no connection "${connection}" (known: ${known.join(', ')})${near ? `; did you mean "${near}"?` : ''}`,
    );
  }
}

/** The names of the configured connections, the default first. */
export const connectionNames = (settings: Settings): string[] => [
  defaultConnectionName,
  ...Object.keys(settings.connections),
];

/**
 * The settings the engine, the store and the worker run on for the connection `name`: the default
 * connection's as loaded, or an entry of `connections` (connection-settings.ts) with its token
 * references read from `env` (and the files or the key they name) and registered as secrets.
 */
export function resolveConnection(
  settings: Settings,
  name: string = defaultConnectionName,
  env: NodeJS.ProcessEnv = process.env,
): Settings {
  if (name === defaultConnectionName) return settings;
  if (!Object.hasOwn(settings.connections, name))
    throw new UnknownConnectionError(name, connectionNames(settings));
  const shape = connectionShape(settings, name);
  const token = (key: 'apiToken' | 'driverToken') => {
    const value = shape[key];
    if (value === undefined) return undefined;
    const setting = `connections.${name}.${key}`;
    return readTokenReference(setting, parseTokenReference(setting, value), withSecretFiles(env));
  };
  const resolved = { ...shape, apiToken: token('apiToken'), driverToken: token('driverToken') };
  registerSettingsSecrets(resolved);
  return checkSettings(resolved);
}

/** `loadSettings` then `resolveConnection`: what every command that takes `--connection` starts with. */
export function loadConnectionSettings(
  name: string = defaultConnectionName,
  env: NodeJS.ProcessEnv = process.env,
): Settings {
  return resolveConnection(loadSettings(env), name, env);
}
