import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { runLog } from '../../src/sync/run-log.js';

/** A logger at `level` writing its lines to an array, parsed. */
function capture(level: 'info' | 'warn') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ level, destination }) };
}

it("writes each line with the run's stream and partition, redacted like every line, nothing below the level", () => {
  const { lines, logger } = capture('warn');
  const log = runLog(logger, { stream: 'tasks', partition: '1001' });
  log.info({ pages: 1 }, 'run succeeded');
  log.warn({ held: 3, token: 'secret-value' }, 'deletes held back');
  log.error({ error: 'boom', partition: 'not-this' }, 'run failed');
  expect(lines).toMatchObject([
    { level: 40, stream: 'tasks', partition: '1001', held: 3, token: '[redacted]', msg: 'deletes held back' },
    { level: 50, stream: 'tasks', partition: 'not-this', error: 'boom', msg: 'run failed' },
  ]);
  expect(JSON.stringify(lines)).not.toContain('secret-value');
});

it('says which levels it writes, so a run builds its last line only when it is written', () => {
  const log = runLog(capture('warn').logger, { stream: 'tasks', partition: '1001' });
  expect([log.enabled('info'), log.enabled('warn'), log.enabled('error')]).toEqual([false, true, true]);
});
