// BullMQ's own cron parser (the version it pins), without loading BullMQ: `sync` never needs it.
import { createRequire } from 'node:module';
import type CronParser from 'cron-parser';
import { defaultSettings, type ScheduleSetting } from './settings.js';
import { SettingsError } from './settings-error.js';

/**
 * Patterns known to parse: the defaults' (test/config/load-settings.test.ts parses them). The
 * parser and luxon under it cost every start ~25-40 ms to load (luxon reads the system's locale),
 * so a command whose settings hold only these never loads them.
 */
const knownPatterns = new Set(
  [defaultSettings.reconcileSchedule, defaultSettings.schedule].flatMap((schedule) =>
    schedule !== false && schedule.cron !== undefined ? [schedule.cron] : [],
  ),
);

/**
 * Exactly one of `everySeconds` and `cron`, and a cron pattern BullMQ can read (the parser it uses
 * checks it here, at load, not when the worker upserts its schedulers).
 */
export function checkSchedule(setting: string, schedule: ScheduleSetting): void {
  if ((schedule.everySeconds === undefined) === (schedule.cron === undefined)) {
    throw new SettingsError(setting, 'set exactly one of everySeconds or cron');
  }
  if (schedule.cron === undefined || knownPatterns.has(schedule.cron)) return;
  const cronParser = createRequire(import.meta.url)('cron-parser') as typeof CronParser;
  try {
    cronParser.parseExpression(schedule.cron, { currentDate: new Date() }).next();
  } catch (error) {
    throw new SettingsError(
      `${setting}.cron`,
      `"${schedule.cron}" is not a cron pattern: ${(error as Error).message}`,
    );
  }
}

/** The patterns `checkSchedule` takes without parsing them (for the test that parses them). */
export const schedulePatternsTakenAsKnown: ReadonlySet<string> = knownPatterns;
