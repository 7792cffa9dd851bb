import { defaultConnectionName } from '../../config/connections/connection-name.js';
import type { Settings } from '../../config/settings.js';
import { createLogger, type Logger } from '../logger.js';

/**
 * The logger of the one-shot commands: LOG_LEVEL when set; otherwise `warn` on a terminal, where
 * the progress line and the summary table speak, and `info` elsewhere (CI logs, cron mail). Lines
 * of a connection other than the default name it (`connection`).
 */
export function cliLogger(settings: Settings, env: NodeJS.ProcessEnv = process.env): Logger {
  const level = env.LOG_LEVEL ? settings.logLevel : process.stderr.isTTY ? 'warn' : settings.logLevel;
  return withConnection(createLogger({ level }), settings);
}

/** The logger with the connection in every line, but for the default connection's (its lines as before). */
export function withConnection(logger: Logger, settings: Pick<Settings, 'connection'>): Logger {
  return settings.connection === defaultConnectionName
    ? logger
    : logger.child({ connection: settings.connection });
}
