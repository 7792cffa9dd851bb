import { checkConnections } from '../../config/connections/check-connections.js';
import type { Settings } from '../../config/settings.js';
import type { StoredConnection } from './connection-control.js';

/**
 * The settings with the control table's rows merged in: the connections the CLI added, and the
 * pause or resume of each (a row's `paused` wins over the file's, being the later word). A name in
 * the config file keeps the file's entry. Every entry is checked again as at load (two connections
 * with one destination are refused, naming both).
 */
export function withStoredConnections(settings: Settings, rows: readonly StoredConnection[]): Settings {
  const connections = { ...settings.connections };
  for (const row of rows) {
    const entry = settings.connections[row.name] ?? row.entry;
    // A pause of a connection since taken out of the file: nothing to pause.
    if (entry === null) continue;
    connections[row.name] = { ...entry, paused: row.paused };
  }
  const merged = { ...settings, connections };
  checkConnections(merged);
  return merged;
}

/** Where a connection is configured: the config file, or the control table (`connections add`). */
export const connectionSource = (settings: Settings, name: string): 'file' | 'cli' =>
  Object.hasOwn(settings.connections, name) ? 'file' : 'cli';
