import { describeDestination } from '../../config/connections/connection-destination.js';
import { defaultConnectionName } from '../../config/connections/connection-name.js';
import { connectionShape, isPaused } from '../../config/connections/connection-settings.js';
import { parseTokenReference, type TokenReference } from '../../config/connections/token-reference.js';
import { connectionNames } from '../../config/resolve-connection.js';
import type { Settings } from '../../config/settings.js';
import { configuredStreams } from '../sync/select-partitions.js';
import { formatTable } from './text-table.js';

/** One connection as `connections list` shows it: where it reads and writes, never a token. */
export interface ConnectionListing {
  readonly name: string;
  /** Where it is configured: the environment (the default), the config file, or the control table (`connections add`). */
  readonly source: 'environment' | 'file' | 'cli';
  /** The TMS host (and port), or null when no base URL is set. */
  readonly host: string | null;
  /** The SQLite file, or the PostgreSQL server, database and schema; no password. */
  readonly destination: string;
  /** Streams selected (streams.include less exclude). */
  readonly streams: number;
  readonly operators: number;
  readonly paused: boolean;
  /** Where its token is kept: `env:NAME`, `file:PATH`, `encrypted`, the default's variable, or `none`. */
  readonly token: string;
}

/**
 * The connections of `settings` (the control table's merged in), the default first; `file` names
 * those of the config file. Read from the settings alone: no token is read.
 */
export function listConnections(settings: Settings, file: ReadonlySet<string>): ConnectionListing[] {
  return connectionNames(settings).map((name) => {
    const shape = name === defaultConnectionName ? settings : connectionShape(settings, name);
    return {
      name,
      source: name === defaultConnectionName ? 'environment' : file.has(name) ? 'file' : 'cli',
      host: shape.baseUrl === undefined ? null : new URL(shape.baseUrl).host,
      destination: describeDestination(shape),
      streams: configuredStreams(shape).length,
      operators: shape.operators.length,
      paused: isPaused(settings, name),
      token: name === defaultConnectionName ? defaultTokenSource(settings) : referenceSource(name, shape),
    };
  });
}

function defaultTokenSource(settings: Settings): string {
  if (settings.apiToken !== undefined) return 'TMS_API_TOKEN';
  return settings.driverToken === undefined ? 'none' : 'TMS_DRIVER_TOKEN';
}

function referenceSource(name: string, shape: Settings): string {
  const key = shape.apiToken === undefined ? 'driverToken' : 'apiToken';
  const reference = parseTokenReference(`connections.${name}.${key}`, shape[key]!);
  return describeReference(reference);
}

const describeReference = (reference: TokenReference): string =>
  reference.kind === 'env'
    ? `env:${reference.variable}`
    : reference.kind === 'file'
      ? `file:${reference.path}`
      : 'encrypted';

export function formatConnections(listing: readonly ConnectionListing[]): string {
  const rows = listing.map((item) => [
    item.name,
    item.source,
    item.host ?? 'none: set baseUrl',
    item.destination,
    String(item.streams),
    String(item.operators),
    item.paused ? 'yes' : 'no',
    item.token,
  ]);
  return formatTable(
    ['connection', 'source', 'tms host', 'destination', 'streams', 'operators', 'paused', 'token'],
    rows,
  );
}
