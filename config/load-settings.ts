import { parsePort } from './address-settings.js';
import { checkSettings } from './check-settings.js';
import { commandsFromEnvironment } from './command-settings.js';
import { checkConnections } from './connections/check-connections.js';
import { listFromEnvironment, toList } from './list-setting.js';
import { readSettingsFile } from './read-settings-file.js';
import { withSecretFiles } from './secret-files.js';
import { topLevelVariables } from './setting-variables.js';
import { defaultSettings, type Settings } from './settings.js';
import { registerSettingsSecrets } from './settings-secrets.js';
import { streamSelection } from './stream-selection.js';
import { tmsFromEnvironment } from './tms-settings.js';
import { workerFromEnvironment } from './worker-settings.js';

/**
 * Settings from defaults, then the JSONC file named by TMS_SYNC_CONFIG (read-settings-file.ts), then the environment (which
 * wins; a secret may come from the file its `<NAME>_FILE` names, secret-files.ts). Every value is checked here, once; a bad one throws SettingsError naming it.
 * These are the default connection's settings, with the file's other `connections` checked
 * (resolve-connection.ts turns one of them into settings).
 */
export function loadSettings(environment: NodeJS.ProcessEnv = process.env): Settings {
  const env = withSecretFiles(environment);
  const file = env.TMS_SYNC_CONFIG ? readSettingsFile(env.TMS_SYNC_CONFIG) : {};
  const merged: Settings = {
    ...defaultSettings,
    ...file,
    operators: toList(file.operators ?? defaultSettings.operators),
    sync: { ...defaultSettings.sync, ...file.sync },
    tms: { ...defaultSettings.tms, ...file.tms, ...tmsFromEnvironment(env) },
    streams: streamSelection(file.streams),
    schedule: file.schedule ?? defaultSettings.schedule,
    streamSchedules: file.streamSchedules ?? defaultSettings.streamSchedules,
    reconcileSchedule: file.reconcileSchedule ?? defaultSettings.reconcileSchedule,
    streamReconcileSchedules: file.streamReconcileSchedules ?? defaultSettings.streamReconcileSchedules,
    logLevel: (file.logLevel ?? defaultSettings.logLevel) as Settings['logLevel'],
    ...fromEnvironment(env),
    worker: { ...defaultSettings.worker, ...file.worker, ...workerFromEnvironment(env) },
    commands: { ...defaultSettings.commands, ...file.commands, ...commandsFromEnvironment(env) },
    connection: defaultSettings.connection,
    connections: file.connections ?? defaultSettings.connections,
  };
  // Before any check: an error about a bad value must not show a secret set beside it.
  registerSettingsSecrets(merged);
  const settings = checkSettings(merged);
  checkConnections(settings);
  return settings;
}

function fromEnvironment(env: NodeJS.ProcessEnv): Partial<Settings> {
  const out: Record<string, unknown> = {};
  const text = (name: string, key: keyof Settings) => {
    const value = env[name];
    if (value !== undefined && value !== '') out[key] = value;
  };
  for (const [name, key] of Object.entries(topLevelVariables)) {
    if (key !== 'operators' && key !== 'opsPort') text(name, key);
  }
  if (env.TMS_OPERATORS !== undefined)
    out.operators = listFromEnvironment('TMS_OPERATORS', env.TMS_OPERATORS);
  if (env.OPS_PORT !== undefined) out.opsPort = parsePort('OPS_PORT', env.OPS_PORT);
  return out as Partial<Settings>;
}
