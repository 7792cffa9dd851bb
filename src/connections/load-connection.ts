import { defaultConnectionName } from '../../config/connections/connection-name.js';
import { loadSettings } from '../../config/load-settings.js';
import { resolveConnection } from '../../config/resolve-connection.js';
import type { Settings } from '../../config/settings.js';
import { openConnectionControl } from './connection-control.js';
import { withStoredConnections } from './stored-connections.js';

/** The settings with every connection, the control table's (`connections add`, pauses) merged in. */
export async function withControlTable(settings: Settings): Promise<Settings> {
  const control = await openConnectionControl(settings);
  try {
    return withStoredConnections(settings, await control.list());
  } finally {
    await control.close();
  }
}

/**
 * What every command that takes `--connection` starts with: the settings the engine runs for the
 * connection `name`. The default connection and those of the config file need nothing but the
 * settings; another name is looked up in the control table of the default connection's store.
 */
export async function loadConnection(
  name: string = defaultConnectionName,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Settings> {
  const settings = loadSettings(env);
  if (name === defaultConnectionName || Object.hasOwn(settings.connections, name))
    return resolveConnection(settings, name, env);
  return resolveConnection(await withControlTable(settings), name, env);
}
