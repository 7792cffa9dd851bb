// BullMQ's own cron parser (the version it pins), without loading BullMQ: `sync` never needs it.
import cronParser from 'cron-parser';
import type { ScheduleSetting } from './settings.js';
import { SettingsError } from './settings-error.js';

/**
 * Exactly one of `everySeconds` and `cron`, and a cron pattern BullMQ can read (the parser it uses
 * checks it here, at load, not when the worker upserts its schedulers).
 */
export function checkSchedule(setting: string, schedule: ScheduleSetting): void {
  if ((schedule.everySeconds === undefined) === (schedule.cron === undefined)) {
    throw new SettingsError(setting, 'set exactly one of everySeconds or cron');
  }
  if (schedule.cron === undefined) return;
  try {
    cronParser.parseExpression(schedule.cron, { currentDate: new Date() }).next();
  } catch (error) {
    throw new SettingsError(
      `${setting}.cron`,
      `"${schedule.cron}" is not a cron pattern: ${(error as Error).message}`,
    );
  }
}
