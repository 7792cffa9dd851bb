import { Errors } from '@sinclair/typebox/errors';
import { ConnectionFile } from '../../config/connection-file.js';
import { SettingsError } from '../../config/settings-error.js';
import { UsageError } from './cli-failure.js';

/** The flags of `connections add`: the common keys of an entry, and `--entry` for any other. */
export interface ConnectionEntryFlags {
  readonly apiToken?: string;
  readonly driverToken?: string;
  readonly baseUrl?: string;
  readonly operators?: string;
  readonly storeUrl?: string;
  readonly storeSchema?: string;
  readonly include?: string;
  readonly exclude?: string;
  readonly maxRps?: string;
  readonly entry?: string;
  readonly paused?: boolean;
}

/**
 * The config-file entry the flags describe: `--entry` JSON (any key of an entry) with the named
 * flags over it, checked against the entry's schema; errors name `connections.<name>/<key>`.
 */
export function connectionEntryOf(name: string, flags: ConnectionEntryFlags): ConnectionFile {
  const base = flags.entry === undefined ? {} : parseEntry(flags.entry);
  const entry: Record<string, unknown> = {
    ...base,
    ...defined({
      apiToken: flags.apiToken,
      driverToken: flags.driverToken,
      baseUrl: flags.baseUrl,
      operators: flags.operators,
      storeUrl: flags.storeUrl,
      storeSchema: flags.storeSchema,
      paused: flags.paused,
    }),
  };
  const streams = defined({ include: flags.include, exclude: flags.exclude });
  if (Object.keys(streams).length > 0) entry.streams = { ...(base.streams as object), ...streams };
  if (flags.maxRps !== undefined)
    entry.tms = { ...(base.tms as object), maxRequestsPerSecond: rps(flags.maxRps) };
  const first = Errors(ConnectionFile, entry).First();
  if (first) throw new SettingsError(`connections.${name}${first.path || '/'}`, first.message);
  return entry as ConnectionFile;
}

function parseEntry(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('--entry: not JSON; expected an object as a config-file connection entry');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError('--entry: expected a JSON object, as a config-file connection entry');
  return parsed as Record<string, unknown>;
}

function rps(text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`--max-rps: expected a whole number, got "${text}"`);
  return Number(text);
}

const defined = (values: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
