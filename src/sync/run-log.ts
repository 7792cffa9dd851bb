import type { Logger } from '../logger.js';

/** A run's log lines, each carrying the run's stream and partition. */
export interface RunLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * The lines of one partition's run, its stream and partition in each. Not a pino child: a child
 * redacts its bindings as it is made (the redaction parses every redacted path again), which was
 * the largest allocation of an idle cycle (~4.6 KB a run, docs/performance-history.md,
 * "2026-11-28 (run log)"), whether or not the run ever logs at the level set.
 */
export function runLog(logger: Logger, at: { readonly stream: string; readonly partition: string }): RunLog {
  const line = (level: 'info' | 'warn' | 'error') => (fields: object, message: string) => {
    if (logger.isLevelEnabled(level))
      logger[level]({ stream: at.stream, partition: at.partition, ...fields }, message);
  };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}
