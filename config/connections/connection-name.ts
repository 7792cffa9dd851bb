import { SettingsError } from '../settings-error.js';

/** The connection of the environment and the config file's top level: today's one account. */
export const defaultConnectionName = 'default';

// It becomes a PostgreSQL schema (`tms_<name>`), a file name and a part of Redis keys: no quoting anywhere.
const namePattern = /^[a-z][a-z0-9_]{0,39}$/;

/** Refuses a name that cannot name a schema, a file and a queue alike, or the default's own. */
export function checkConnectionName(name: string): void {
  if (name === defaultConnectionName)
    throw new SettingsError(
      `connections.${name}`,
      'the default connection is the top level of the file and the environment: give this one another name',
    );
  if (!namePattern.test(name))
    throw new SettingsError(
      `connections.${name}`,
      'a connection name is lower-case letters, digits and "_", starting with a letter, at most 40',
    );
}
