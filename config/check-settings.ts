import { checkHttpUrl, checkListenHost, checkRedisUrl } from './address-settings.js';
import { checkCommandSettings } from './command-settings.js';
import { checkSchedule } from './schedule-settings.js';
import type { Settings } from './settings.js';
import { SettingsError } from './settings-error.js';
import { storeLocation } from './store-url.js';
import { streams } from './streams.js';
import { checkTmsSettings } from './tms-settings.js';
import { checkWorkerSettings } from './worker-settings.js';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Checks merged settings, every value once, and freezes them; a bad one throws SettingsError
 * naming its environment variable or config-file key (StoreUrlError for the store's location).
 */
export function checkSettings(settings: Settings): Settings {
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
