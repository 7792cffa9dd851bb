import { checkHttpUrl, checkListenHost, checkRedisUrl, parsePort } from './address-settings.js';
import { checkCommandSettings, commandsFromEnvironment } from './command-settings.js';
import { listFromEnvironment, toList } from './list-setting.js';
import { readSettingsFile } from './read-settings-file.js';
import { checkSchedule } from './schedule-settings.js';
import { withSecretFiles } from './secret-files.js';
import { topLevelVariables } from './setting-variables.js';
import { defaultSettings, type Settings } from './settings.js';
import { SettingsError } from './settings-error.js';
import { registerSettingsSecrets } from './settings-secrets.js';
import { storeLocation } from './store-url.js';
import { streamSelection } from './stream-selection.js';
import { streams } from './streams.js';
import { checkTmsSettings, tmsFromEnvironment } from './tms-settings.js';
import { checkWorkerSettings, workerFromEnvironment } from './worker-settings.js';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Settings from defaults, then the JSONC file named by TMS_SYNC_CONFIG (read-settings-file.ts), then the environment (which
 * wins; a secret may come from the file its `<NAME>_FILE` names, secret-files.ts). Every value is checked here, once; a bad one throws SettingsError naming it.
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
  };
  // Before any check: an error about a bad value must not show a secret set beside it.
  registerSettingsSecrets(merged);
  return validate(merged);
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

function validate(settings: Settings): Settings {
  if (settings.baseUrl !== undefined) checkHttpUrl('TMS_BASE_URL', settings.baseUrl);
  if (!settings.loginPath.startsWith('/')) throw new SettingsError('TMS_LOGIN_PATH', 'must start with "/"');
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(settings.storeUrl)) {
    throw new SettingsError('STORE_URL', 'expected sqlite:PATH or postgres://USER@HOST:PORT/DATABASE');
  }
  // The schema's name, and that it goes with a PostgreSQL store (StoreUrlError names the setting).
  storeLocation(settings.storeUrl, settings.storeSchema);
  checkRedisUrl('REDIS_URL', settings.redisUrl);
  checkListenHost('OPS_HOST', settings.opsHost);
  if (!(logLevels as readonly string[]).includes(settings.logLevel)) {
    throw new SettingsError(
      'LOG_LEVEL',
      `expected one of ${logLevels.join(', ')}, got "${settings.logLevel}"`,
    );
  }
  checkWorkerSettings(settings.worker);
  checkTmsSettings(settings.tms);
  for (const list of ['include', 'exclude', 'history'] as const) {
    const unknown = (settings.streams[list] ?? []).filter((stream) => !(stream in streams));
    if (unknown.length > 0)
      throw new SettingsError(`streams.${list}`, `no such stream: ${unknown.join(', ')}`);
  }
  checkCommandSettings(settings.commands);
  checkSchedule('schedule', settings.schedule);
  for (const [stream, schedule] of Object.entries(settings.streamSchedules)) {
    if (!(stream in streams)) throw new SettingsError(`streamSchedules.${stream}`, 'no such stream');
    checkSchedule(`streamSchedules.${stream}`, schedule);
  }
  if (settings.reconcileSchedule !== false) checkSchedule('reconcileSchedule', settings.reconcileSchedule);
  for (const [stream, schedule] of Object.entries(settings.streamReconcileSchedules)) {
    const setting = `streamReconcileSchedules.${stream}`;
    if (!(stream in streams)) throw new SettingsError(setting, 'no such stream');
    if (schedule !== false) checkSchedule(setting, schedule);
  }
  return Object.freeze(settings);
}
