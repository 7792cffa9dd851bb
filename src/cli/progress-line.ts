import type { RunProgress } from '../sync/run-options.js';

/**
 * Progress of the running stream on one rewritten terminal line (stderr), only when stderr is a
 * TTY; elsewhere it stays silent and the summary table says it all.
 */
export function createProgressLine(stream: NodeJS.WriteStream = process.stderr) {
  const enabled = stream.isTTY === true;
  let shown = false;
  return {
    update(progress: RunProgress): void {
      if (!enabled) return;
      const name = progress.partition ? `${progress.stream}/${progress.partition}` : progress.stream;
      const rate = progress.elapsedMs > 0 ? Math.round((progress.records * 1000) / progress.elapsedMs) : 0;
      const text = `${name}: ${progress.pages} pages, ${progress.records.toLocaleString('en-US')} records, ${rate.toLocaleString('en-US')}/s`;
      stream.write(`\r\x1b[2K${text}`);
      shown = true;
    },
    done(): void {
      if (shown) stream.write('\r\x1b[2K');
      shown = false;
    },
  };
}
