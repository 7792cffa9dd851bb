import type { ClientTraffic } from '../client/index.js';
import type { PartitionSummary, RunProgress } from '../sync/run-options.js';
import { thousands } from './thousands.js';

const breakerText: Record<ClientTraffic['breaker'], string> = {
  closed: 'TMS answering',
  open: 'TMS not answering: requests stopped (breaker open)',
  'half-open': 'TMS not answering: probing',
};

/**
 * The run's progress on one rewritten terminal line (stderr), only when stderr is a TTY; elsewhere
 * it stays silent and the summary table says it all. Redrawn every second: the partitions running
 * with their records, partitions done and failed, requests per second, retries, 429s, requests in
 * flight against the adaptive limit, and whether the TMS answers.
 */
export function createProgressLine(
  traffic: () => ClientTraffic,
  stream: NodeJS.WriteStream = process.stderr,
  everyMs = 1000,
) {
  const enabled = stream.isTTY === true;
  const running = new Map<string, RunProgress>();
  let done = 0;
  let failed = 0;
  let last = { at: performance.now(), sends: traffic().sends };
  let rate = 0;
  let shown = false;

  const draw = () => {
    const now = performance.now();
    const seen = traffic();
    rate = Math.round(((seen.sends - last.sends) * 1000) / Math.max(1, now - last.at));
    last = { at: now, sends: seen.sends };
    stream.write(`\r\x1b[2K${describe(seen).slice(0, Math.max(40, (stream.columns ?? 160) - 1))}`);
    shown = true;
  };
  const describe = (seen: ClientTraffic) => {
    const partitions = [...running.values()].map(
      (p) => `${p.partition ? `${p.stream}/${p.partition}` : p.stream} ${thousands(p.records)}`,
    );
    return [
      partitions.length > 0 ? partitions.join(', ') : 'starting',
      `${done} done${failed > 0 ? ` (${failed} failed)` : ''}`,
      `${rate} req/s`,
      `${thousands(seen.retries)} retries`,
      ...(seen.rateLimited > 0 ? [`${seen.rateLimited} × 429`] : []),
      `${seen.inFlight}/${seen.limit} in flight`,
      breakerText[seen.breaker],
    ].join(' · ');
  };
  const timer = enabled ? setInterval(draw, everyMs) : undefined;
  timer?.unref();

  return {
    update(progress: RunProgress): void {
      running.set(`${progress.stream}\u0000${progress.partition}`, progress);
    },
    partitionDone(summary: PartitionSummary): void {
      running.delete(`${summary.stream}\u0000${summary.partition}`);
      done += 1;
      if (summary.result === 'failed' || summary.result === 'interrupted') failed += 1;
    },
    done(): void {
      if (timer) clearInterval(timer);
      if (shown) stream.write('\r\x1b[2K');
      shown = false;
    },
  };
}
