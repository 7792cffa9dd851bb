import { type Logger, type LoggerOptions, pino } from 'pino';
import { censor, redactSecrets } from './secrets/secret-registry.js';

export type { Logger } from 'pino';

/**
 * Paths pino blanks in every log line: tokens, auth headers and passwords never reach a log,
 * whatever object a caller passes.
 */
export const redactedPaths = [
  'token',
  'apiToken',
  'accessToken',
  'access',
  'driverToken',
  'password',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  '*.token',
  '*.apiToken',
  '*.accessToken',
  '*.driverToken',
  '*.password',
  '*.authorization',
  'headers["x-sim-admin"]',
  'req.headers["x-sim-admin"]',
];

export interface LoggerSettings {
  /** pino level. @default 'info' */
  level?: LoggerOptions['level'];
  /** Where lines go. @default process.stderr */
  destination?: NodeJS.WritableStream;
}

/**
 * The one way to make a logger: JSON lines with secrets redacted, by field name (`redactedPaths`)
 * and by value in the finished line (a token inside a server's error text: secret-registry.ts).
 */
export function createLogger(settings: LoggerSettings = {}): Logger {
  return pino(
    {
      level: settings.level ?? 'info',
      redact: { paths: redactedPaths, censor },
      hooks: { streamWrite: redactSecrets },
    },
    settings.destination ?? process.stderr,
  );
}
