import { defaultConnectionName } from '../../config/connections/connection-name.js';
import { connectionShape } from '../../config/connections/connection-settings.js';
import { loadSettings } from '../../config/load-settings.js';
import type { Settings } from '../../config/settings.js';
import { announceConnectionChange } from '../../jobs/connection-news.js';
import { type ConnectionControl, openConnectionControl } from '../connections/connection-control.js';
import { withControlTable } from '../connections/load-connection.js';
import { withStoredConnections } from '../connections/stored-connections.js';
import { UsageError } from './cli-failure.js';
import { type ConnectionEntryFlags, connectionEntryOf } from './connection-entry.js';
import { openCliStore } from './with-cli-store.js';

/**
 * `connections add`: the entry checked as the config file's are (its name, its token references,
 * its values, a destination of its own), its destination made ready (its tables migrated), then
 * the entry stored in the control table.
 */
export async function addConnection(name: string, flags: ConnectionEntryFlags): Promise<string> {
  const entry = connectionEntryOf(name, flags);
  const settings = await withControlTable(loadSettings());
  if (Object.hasOwn(settings.connections, name))
    throw new UsageError(`connection "${name}" exists already: remove it first, or pause it`);
  const merged = withStoredConnections(settings, [{ name, entry, paused: entry.paused === true }]);
  await prepareDestination(connectionShape(merged, name));
  await withControl(settings, async (control) => {
    if (!(await control.add(name, entry))) throw new UsageError(`connection "${name}" exists already`);
  });
  return `connection "${name}" added${entry.paused ? ', paused' : ''}`;
}

/**
 * Migrates a new connection's destination here, before any worker knows it: a worker busy with
 * other connections' runs took 20-45 s for the ~110 migrations of a new PostgreSQL schema
 * (BENCHMARKS.md, "Levers left"), this idle process about a second; the worker then finds them done.
 * A destination that cannot be opened fails the add, and nothing is stored.
 */
async function prepareDestination(connection: Settings): Promise<void> {
  const store = await openCliStore(connection);
  await store.close();
}

/** `connections pause|resume`: any connection but the default; workers follow within seconds. */
export async function setConnectionPaused(name: string, paused: boolean): Promise<string> {
  const settings = await knownConnection(name);
  await withControl(settings, (control) => control.setPaused(name, paused));
  return `connection "${name}" ${paused ? 'paused: its worker takes no new job' : 'resumed'}`;
}

/** `connections remove`: a connection the CLI added; its destination and its data stay. */
export async function removeConnection(name: string): Promise<string> {
  const file = loadSettings();
  if (Object.hasOwn(file.connections, name))
    throw new UsageError(`connection "${name}" is in the config file: take it out there (or pause it)`);
  await knownConnection(name);
  await withControl(file, (control) => control.remove(name));
  return `connection "${name}" removed; its destination and data are kept`;
}

async function knownConnection(name: string): Promise<Settings> {
  if (name === defaultConnectionName)
    throw new UsageError(
      'the default connection is the environment and the config file: it cannot be paused or removed',
    );
  const settings = await withControlTable(loadSettings());
  if (!Object.hasOwn(settings.connections, name)) {
    const known = Object.keys(settings.connections);
    throw new UsageError(
      `no connection "${name}" (known: ${known.length > 0 ? known.join(', ') : 'none but default'})`,
    );
  }
  return settings;
}

async function withControl<T>(
  settings: Settings,
  use: (control: ConnectionControl) => Promise<T>,
): Promise<T> {
  const control = await openConnectionControl(settings, { write: true });
  let result: T;
  try {
    result = await use(control);
  } finally {
    await control.close();
  }
  // Workers of all connections read it at once; without Redis, at their next pass (5 s).
  await announceConnectionChange(settings);
  return result;
}
