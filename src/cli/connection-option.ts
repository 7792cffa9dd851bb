import { Option } from 'commander';
import { defaultConnectionName } from '../../config/connections/connection-name.js';

/** The flags every command that talks to a TMS, a store or the queue takes. */
export interface ConnectionFlag {
  /** @default 'default' */
  readonly connection: string;
}

/**
 * `--connection NAME`: which TMS account and destination the command works on, an entry of the
 * config file's `connections` or one added with `connections add` (docs/connections.md); the
 * default connection is the environment's. TMS_CONNECTION says the same where the command line is
 * fixed (the image starts `worker`, and a container per connection sets the variable).
 */
export const connectionOption = (): Option =>
  new Option(
    '--connection <name>',
    "the connection: an entry of the config file's connections, or one added with `connections add` (docs/connections.md)",
  )
    .env('TMS_CONNECTION')
    .default(defaultConnectionName);
