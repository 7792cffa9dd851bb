import type { Settings } from '../../config/settings.js';
import { controlRowsReader } from './connection-control.js';

/** Whether a connection's worker may take jobs: `removed` when its control row went (`connections remove`). */
export type ConnectionState = 'running' | 'paused' | 'removed';

/** Reads a connection's state from the control table, over one connection held between reads. */
export interface ConnectionStateReader {
  read(): Promise<ConnectionState>;
  close(): Promise<void>;
}

/**
 * The state of the connection `name` as `connections pause|resume|remove` last set it, else as the
 * config file says (`paused`); `file` holds the settings as loaded, before the control table.
 */
export function connectionStateReader(file: Settings, name: string): ConnectionStateReader {
  const control = controlRowsReader(file);
  return {
    async read() {
      const rows = await control.rows();
      const row = rows.find((item) => item.name === name);
      if (row !== undefined) return row.paused ? 'paused' : 'running';
      const entry = file.connections[name];
      if (entry === undefined) return 'removed';
      return entry.paused ? 'paused' : 'running';
    },
    close: () => control.close(),
  };
}
