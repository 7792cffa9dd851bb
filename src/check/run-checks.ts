import { setMaxListeners } from 'node:events';
import pMap from 'p-map';
import { request } from 'undici';
import { settingOf } from '../../config/connections/setting-name.js';
import type { Settings } from '../../config/settings.js';
import type { StreamName } from '../../config/streams.js';
import type { TmsClient } from '../client/index.js';
import { configurationMistake } from '../sync/check-access.js';
import { selectPartitions } from '../sync/select-partitions.js';
import { partitionLabel } from '../sync/stream-order.js';
import { describeError } from '../tms-sync-error.js';
import { type Probe, probePartition } from './probe-partition.js';

/** One line of `tms-sync check`. */
export interface CheckLine {
  /** `connection`, `login`, or a stream partition (`tasks/1001`). */
  readonly what: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly ms: number;
}

export interface RunChecksOptions {
  readonly settings: Settings;
  readonly client: TmsClient;
  /** Told each line as it is known, in order. @default nothing */
  readonly onLine?: (line: CheckLine) => void;
  /** How long the whole check may take. @default 20000 */
  readonly timeoutMs?: number;
}

/**
 * What `tms-sync check` tries, in order: the connection to TMS_BASE_URL (or the connection's
 * `baseUrl`), the login with TMS_API_TOKEN (its `apiToken`), then, at once, the first request of every selected stream partition (each
 * operator's too; probe-partition.ts). A failed connection or login stops there: every stream
 * would fail the same way.
 */
export async function runChecks(options: RunChecksOptions): Promise<CheckLine[]> {
  const { settings, client } = options;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 20_000);
  // Every request of the check listens to it (16 at once): not the leak Node's warning suspects.
  setMaxListeners(0, signal);
  const lines: CheckLine[] = [];
  const report = (line: CheckLine) => {
    lines.push(line);
    options.onLine?.(line);
    return line.ok;
  };
  const base = settings.baseUrl!;
  const baseSetting = settingOf(settings.connection, 'TMS_BASE_URL');
  if (!report(await timed('connection', () => connect(base, baseSetting, signal)))) return lines;
  const login = await timed('login', async () => {
    await client.checkLogin(signal).catch((error: unknown) => {
      throw configurationMistake(error, settings) ?? error;
    });
    return `POST ${settings.loginPath}: the API token was taken`;
  });
  if (!report(login)) return lines;
  const probes = new Map<string, Promise<Probe>>();
  const probeOf = (stream: StreamName, partition: string): Promise<Probe> => {
    const label = partitionLabel({ stream, partition });
    let probe = probes.get(label);
    if (!probe) {
      probe = probePartition(context, stream, partition);
      probes.set(label, probe);
    }
    return probe;
  };
  const context = { client, sequenceField: settings.sequenceField, signal, probeOf };
  const { partitions } = selectPartitions([], settings);
  const results = await pMap(
    partitions,
    ({ stream, partition }) =>
      timed(partitionLabel({ stream, partition }), async () => (await probeOf(stream, partition)).detail),
    { concurrency: settings.tms.maxConcurrency },
  );
  for (const line of results) report(line);
  return lines;
}

async function timed(what: string, check: () => Promise<string>): Promise<CheckLine> {
  const started = performance.now();
  try {
    const detail = await check();
    return { what, ok: true, detail, ms: Math.round(performance.now() - started) };
  } catch (error) {
    // Our own lines read without a class name; an error of a kind says which.
    const detail = describeError(error).replace(/^Error: /, '');
    return { what, ok: false, detail, ms: Math.round(performance.now() - started) };
  }
}

/** Whether anything answers HTTP at the base URL (any status will do: the login comes next). */
async function connect(baseUrl: string, setting: string, signal: AbortSignal): Promise<string> {
  try {
    const answer = await request(baseUrl, { signal });
    await answer.body.dump();
    return `${baseUrl} answers HTTP`;
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new Error(`nothing answers at ${baseUrl} (${setting}): ${code ?? (error as Error).message}`);
  }
}
