import type { Logger } from '../logger.js';

type Level = 'info' | 'warn' | 'error';

/** A run's log lines, each carrying the run's stream and partition. */
export interface RunLog {
  /** Whether a line of `level` is written: a caller builds costly fields only then. */
  enabled(level: Level): boolean;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * The lines of one partition's run, its stream and partition in each. Not a pino child: a child
 * redacts its bindings as it is made (the redaction parses every redacted path again), which was
 * the largest allocation of an idle cycle (~4.6 KB a run, docs/performance-history.md,
 * "2026-11-28 (run log)"), whether or not the run ever logs at the level set. One object a run,
 * no closure.
 */
export function runLog(logger: Logger, at: { readonly stream: string; readonly partition: string }): RunLog {
  return new PartitionLog(logger, at);
}

class PartitionLog implements RunLog {
  readonly #logger: Logger;
  readonly #at: { readonly stream: string; readonly partition: string };

  constructor(logger: Logger, at: { readonly stream: string; readonly partition: string }) {
    this.#logger = logger;
    this.#at = at;
  }

  enabled(level: Level): boolean {
    return this.#logger.isLevelEnabled(level);
  }

  info(fields: object, message: string): void {
    this.#line('info', fields, message);
  }

  warn(fields: object, message: string): void {
    this.#line('warn', fields, message);
  }

  error(fields: object, message: string): void {
    this.#line('error', fields, message);
  }

  #line(level: Level, fields: object, message: string): void {
    if (this.#logger.isLevelEnabled(level))
      this.#logger[level]({ stream: this.#at.stream, partition: this.#at.partition, ...fields }, message);
  }
}
