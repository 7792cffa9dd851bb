import type { Settings } from '../../config/settings.js';
import { createLogger, type Logger } from '../logger.js';

/**
 * The logger of the one-shot commands: LOG_LEVEL when set; otherwise `warn` on a terminal, where
 * the progress line and the summary table speak, and `info` elsewhere (CI logs, cron mail).
 */
export function cliLogger(settings: Settings, env: NodeJS.ProcessEnv = process.env): Logger {
  const level = env.LOG_LEVEL ? settings.logLevel : process.stderr.isTTY ? 'warn' : settings.logLevel;
  return createLogger({ level });
}
