import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';

/** A debug logger that keeps its lines, to count events and look for secrets. */
export function captureLogger(): { logger: Logger; lines: string[]; count(message: string): number } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return {
    logger: pino({ level: 'debug' }, destination),
    lines,
    count: (message) => lines.filter((line) => line.includes(message)).length,
  };
}
