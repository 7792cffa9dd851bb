import { readFileSync } from 'node:fs';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { defaultSettings, type ScheduleSetting, type Settings } from './settings.js';
import { SettingsError } from './settings-error.js';
import { SettingsFile } from './settings-file.js';
import { streams } from './streams.js';
import { checkTmsSettings, tmsFromEnvironment } from './tms-settings.js';
import { checkWorkerSettings, workerFromEnvironment } from './worker-settings.js';

const checkFile = TypeCompiler.Compile(SettingsFile);
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Settings from defaults, then the JSON file named by TMS_SYNC_CONFIG, then the environment (which
 * wins). Every value is checked here, once; a bad one throws SettingsError naming it.
 */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const file = env.TMS_SYNC_CONFIG ? readSettingsFile(env.TMS_SYNC_CONFIG) : {};
  const merged: Settings = {
    ...defaultSettings,
    ...file,
    sync: { ...defaultSettings.sync, ...file.sync },
    tms: { ...defaultSettings.tms, ...file.tms, ...tmsFromEnvironment(env) },
    schedule: file.schedule ?? defaultSettings.schedule,
    streamSchedules: file.streamSchedules ?? defaultSettings.streamSchedules,
    logLevel: (file.logLevel ?? defaultSettings.logLevel) as Settings['logLevel'],
    ...fromEnvironment(env),
    worker: { ...defaultSettings.worker, ...file.worker, ...workerFromEnvironment(env) },
  };
  return validate(merged);
}

function readSettingsFile(path: string): SettingsFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SettingsError('TMS_SYNC_CONFIG', `cannot read ${path}: ${(error as Error).message}`);
  }
  const first = checkFile.Errors(parsed).First();
  if (first) throw new SettingsError(`${path}${first.path || '/'}`, first.message);
  return parsed as SettingsFile;
}

function fromEnvironment(env: NodeJS.ProcessEnv): Partial<Settings> {
  const out: Record<string, unknown> = {};
  const text = (name: string, key: keyof Settings) => {
    const value = env[name];
    if (value !== undefined && value !== '') out[key] = value;
  };
  text('TMS_BASE_URL', 'baseUrl');
  text('TMS_API_TOKEN', 'apiToken');
  text('TMS_LOGIN_PATH', 'loginPath');
  text('TMS_DRIVER_TOKEN', 'driverToken');
  text('STORE_URL', 'storeUrl');
  text('REDIS_URL', 'redisUrl');
  text('OPS_HOST', 'opsHost');
  text('LOG_LEVEL', 'logLevel');
  text('TMS_SEQUENCE_FIELD', 'sequenceField');
  if (env.TMS_OPERATORS !== undefined) out.operators = splitList(env.TMS_OPERATORS);
  if (env.OPS_PORT !== undefined) out.opsPort = parsePort('OPS_PORT', env.OPS_PORT);
  return out as Partial<Settings>;
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function parsePort(setting: string, value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new SettingsError(setting, `expected a port number 0-65535, got "${value}"`);
  }
  return port;
}

function validate(settings: Settings): Settings {
  if (settings.baseUrl !== undefined) checkHttpUrl('TMS_BASE_URL', settings.baseUrl);
  if (!settings.loginPath.startsWith('/')) throw new SettingsError('TMS_LOGIN_PATH', 'must start with "/"');
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(settings.storeUrl)) {
    throw new SettingsError('STORE_URL', 'expected sqlite:PATH or postgres://USER@HOST:PORT/DATABASE');
  }
  if (!/^rediss?:\/\/.+/.test(settings.redisUrl))
    throw new SettingsError('REDIS_URL', 'expected redis://HOST:PORT');
  if (!(logLevels as readonly string[]).includes(settings.logLevel)) {
    throw new SettingsError(
      'LOG_LEVEL',
      `expected one of ${logLevels.join(', ')}, got "${settings.logLevel}"`,
    );
  }
  checkWorkerSettings(settings.worker);
  checkTmsSettings(settings.tms);
  checkSchedule('schedule', settings.schedule);
  for (const [stream, schedule] of Object.entries(settings.streamSchedules)) {
    if (!(stream in streams)) throw new SettingsError(`streamSchedules.${stream}`, 'no such stream');
    checkSchedule(`streamSchedules.${stream}`, schedule);
  }
  return Object.freeze(settings);
}

function checkHttpUrl(setting: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingsError(setting, `not a URL: "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SettingsError(setting, `expected an http or https URL, got "${url.protocol}"`);
  }
}

function checkSchedule(setting: string, schedule: ScheduleSetting): void {
  if ((schedule.everySeconds === undefined) === (schedule.cron === undefined)) {
    throw new SettingsError(setting, 'set exactly one of everySeconds or cron');
  }
}
