import { fileKeyOfVariable } from '../setting-variables.js';
import { defaultConnectionName } from './connection-name.js';

/**
 * The name of a setting as the user wrote it for the connection: the environment variable for the
 * default connection (`TMS_API_TOKEN`), the entry's key for another (`connections.acme.apiToken`).
 */
export function settingOf(connection: string | undefined, variable: string): string {
  if (connection === undefined || connection === defaultConnectionName) return variable;
  return `connections.${connection}.${fileKeyOfVariable[variable] ?? variable}`;
}
