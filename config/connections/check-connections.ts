import { checkSettings } from '../check-settings.js';
import { fileKeyOfVariable } from '../setting-variables.js';
import type { Settings } from '../settings.js';
import { SettingsError } from '../settings-error.js';
import { StoreUrlError } from '../store-url.js';
import { describeDestination, destinationIdentity } from './connection-destination.js';
import { checkConnectionName, defaultConnectionName } from './connection-name.js';
import { connectionShape } from './connection-settings.js';
import { parseTokenReference } from './token-reference.js';

/**
 * Checks every entry of `connections` when the settings load, as the default's settings are
 * checked: its name, its token references (a plain token is refused), each value of its settings
 * (errors name `connections.<name>.<key>`), and that no two connections share a destination.
 * Token references are read only when a connection is used (resolve-connection.ts).
 */
export function checkConnections(settings: Settings): void {
  const owners = new Map([[destinationIdentity(settings), defaultConnectionName]]);
  for (const name of Object.keys(settings.connections)) {
    checkConnectionName(name);
    const shape = connectionShape(settings, name);
    checkTokens(name, shape);
    withConnectionNames(name, () => checkSettings({ ...shape, apiToken: undefined, driverToken: undefined }));
    const identity = withConnectionNames(name, () => destinationIdentity(shape));
    const owner = owners.get(identity);
    if (owner !== undefined)
      throw new SettingsError(
        `connections.${name}.storeUrl`,
        `its destination ${describeDestination(shape)} is connection "${owner}"'s too: give each connection its own schema or file`,
      );
    owners.set(identity, name);
  }
}

function checkTokens(name: string, shape: Settings): void {
  const tokens = { apiToken: shape.apiToken, driverToken: shape.driverToken };
  for (const [key, value] of Object.entries(tokens)) {
    if (value !== undefined) parseTokenReference(`connections.${name}.${key}`, value);
  }
  // The login needs it as the default connection's needs TMS_API_TOKEN; a driver token only adds to it.
  if (tokens.apiToken === undefined)
    throw new SettingsError(
      `connections.${name}.apiToken`,
      'a connection needs its own API token: it is not inherited from the default connection',
    );
}

/** Runs a check of a connection's settings with its errors naming the entry's keys, not the default's variables. */
function withConnectionNames<T>(name: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof StoreUrlError)
      throw new SettingsError(
        `connections.${name}.storeUrl`,
        error.message.replace(/STORE_URL|STORE_SCHEMA/g, (variable) => fileKeyOfVariable[variable]!),
      );
    if (!(error instanceof SettingsError)) throw error;
    throw new SettingsError(
      `connections.${name}.${fileKeyOfVariable[error.setting] ?? error.setting}`,
      error.problem,
    );
  }
}
