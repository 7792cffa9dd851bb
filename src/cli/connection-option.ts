import { Option } from 'commander';
import { defaultConnectionName } from '../../config/connections/connection-name.js';

/** The flags every command that talks to a TMS, a store or the queue takes. */
export interface ConnectionFlag {
  /** @default 'default' */
  readonly connection: string;
}

/**
 * `--connection NAME`: which TMS account and destination the command works on, an entry of the
 * config file's `connections` (docs/connections.md); the default connection is the environment's.
 */
export const connectionOption = (): Option =>
  new Option(
    '--connection <name>',
    "the connection: an entry of the config file's connections (docs/connections.md)",
  ).default(defaultConnectionName);
