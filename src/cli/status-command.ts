import type { Command } from 'commander';
import { loadSettings } from '../../config/load-settings.js';
import { streams } from '../../config/streams.js';
import { openStore } from '../store/open-store.js';
import type { ColumnReport, HeldDelete, Store, SyncRun } from '../store/store.js';
import { runCommand } from './cli-failure.js';
import { cliLogger } from './cli-logger.js';
import { formatQueueStatus, readQueueStatus } from './queue-status.js';
import { formatTable } from './text-table.js';

/** One line of `status`: what the store knows of a stream partition. */
export interface StreamStatus {
  readonly stream: string;
  readonly partition: string;
  readonly watermark: number | null;
  /** A cycle was interrupted and will resume from its checkpoint. */
  readonly cycleInProgress: boolean;
  readonly lastRun: Omit<SyncRun, 'stream' | 'partition'> | null;
  /** Seconds since the last run that succeeded; null before the first. */
  readonly lagSeconds: number | null;
  /**
   * Child streams: parents waiting for their children's refresh (`everyParent`: all of them, after a
   * parent's full cycle); `leftParents` of them a run gave up on, `lastError` the latest reason.
   */
  readonly pending?: {
    readonly queuedParents: number;
    readonly everyParent: boolean;
    readonly leftParents: number;
    readonly lastError: string | null;
  };
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('Per stream: watermark, last run (when, result, counts) and lag; with Redis: the queue.')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) =>
      runCommand('status', async () => {
        const settings = loadSettings();
        const store = await openStore(settings.storeUrl, { logger: cliLogger(settings) });
        try {
          const [status, attention, queue] = await Promise.all([
            readStatus(store, new Date()),
            readAttention(store),
            readQueueStatus(settings),
          ]);
          process.stdout.write(
            flags.json
              ? `${JSON.stringify({ streams: status, ...attention, queue }, null, 2)}\n`
              : formatStatus(status) + formatAttention(attention) + formatQueueStatus(queue),
          );
        } finally {
          await store.close();
        }
        return 0;
      }),
    );
}

/** Every catalogue stream, with each partition the store has seen (one empty line for a stream never run). */
export async function readStatus(store: Store, now: Date): Promise<StreamStatus[]> {
  const [states, runs, succeeded, childWork] = await Promise.all([
    store.listStates(),
    store.lastRuns(),
    lastSuccesses(store),
    store.pendingChildWork(),
  ]);
  const key = (stream: string, partition: string) => `${stream}\u0000${partition}`;
  const partitions = new Map<string, { stream: string; partition: string }>();
  for (const item of [...states, ...runs]) partitions.set(key(item.stream, item.partition), item);
  for (const stream of Object.keys(streams)) {
    if (![...partitions.values()].some((item) => item.stream === stream))
      partitions.set(key(stream, ''), { stream, partition: '' });
  }
  return [...partitions.values()].map(({ stream, partition }) => {
    const state = states.find((item) => item.stream === stream && item.partition === partition);
    const run = runs.find((item) => item.stream === stream && item.partition === partition);
    const success = succeeded.get(key(stream, partition));
    const work = partition === '' ? childWork.find((item) => item.stream === stream) : undefined;
    return {
      stream,
      partition,
      watermark: state?.watermark ?? null,
      cycleInProgress: state?.cursor != null,
      lastRun: run ? withoutScope(run) : null,
      lagSeconds: success ? Math.round((now.getTime() - success.getTime()) / 1000) : null,
      ...(work
        ? {
            pending: {
              queuedParents: work.queuedParents,
              everyParent: work.everyParent,
              leftParents: work.leftParents,
              lastError: work.lastError,
            },
          }
        : {}),
    };
  });
}

/** What needs a person: deletes the guard held back, and typed columns whose values stopped fitting. */
export interface Attention {
  readonly heldDeletes: HeldDelete[];
  readonly drift: Array<
    Pick<ColumnReport, 'stream' | 'column' | 'type' | 'drift' | 'driftSample' | 'driftAt'>
  >;
}

export async function readAttention(store: Store): Promise<Attention> {
  const [heldDeletes, columns] = await Promise.all([store.heldDeletes(), store.describeColumns()]);
  const drift = columns
    .filter((column) => column.drift > 0)
    .map(({ stream, column, type, drift, driftSample, driftAt }) => ({
      stream,
      column,
      type,
      drift,
      driftSample,
      driftAt,
    }));
  return { heldDeletes, drift };
}

function formatAttention({ heldDeletes, drift }: Attention): string {
  const held = heldDeletes.map((entry) => [
    entry.scope ? `${entry.stream}/${entry.scope}` : entry.stream,
    `${entry.wouldDelete} of ${entry.liveBefore}`,
    entry.reason,
    entry.detectedAt.toISOString(),
    entry.approvedAt
      ? `approved ${entry.approvedAt.toISOString()}`
      : `tms-sync approve-deletes ${entry.stream}${entry.scope ? ` ${entry.scope}` : ''}`,
  ]);
  const drifting = drift.map((entry) => [
    `${entry.stream}.${entry.column}`,
    entry.type,
    String(entry.drift),
    entry.driftSample ?? '',
  ]);
  return [
    held.length
      ? `\ndeletes held back by the mass-delete guard\n${formatTable(['scope', 'rows', 'reason', 'since', 'to apply'], held, '  ')}`
      : '',
    drifting.length
      ? `\nvalues that did not fit their typed column (NULL there, whole in data)\n${formatTable(['column', 'type', 'values', 'latest'], drifting, '  ')}`
      : '',
  ].join('');
}

async function lastSuccesses(store: Store): Promise<Map<string, Date>> {
  const out = new Map<string, Date>();
  for (const run of await store.listRuns({ limit: 1000 })) {
    const key = `${run.stream}\u0000${run.partition}`;
    if (run.result === 'succeeded' && run.finishedAt && !out.has(key)) out.set(key, run.finishedAt);
  }
  return out;
}

function withoutScope({ stream: _stream, partition: _partition, ...run }: SyncRun) {
  return run;
}

function formatStatus(status: readonly StreamStatus[]): string {
  const header = ['stream', 'watermark', 'last run', 'result', 'records', 'lag', 'pending'];
  const rows = status.map((item) => [
    item.partition ? `${item.stream}/${item.partition}` : item.stream,
    item.watermark === null ? '' : `${item.watermark}${item.cycleInProgress ? ' (cycle in progress)' : ''}`,
    item.lastRun ? item.lastRun.startedAt.toISOString() : 'never',
    item.lastRun?.result ?? '',
    item.lastRun ? String(item.lastRun.inserted + item.lastRun.updated) : '',
    item.lagSeconds === null ? '' : `${item.lagSeconds}s`,
    pendingText(item.pending),
  ]);
  return formatTable(header, rows);
}

function pendingText(pending: StreamStatus['pending']): string {
  if (!pending) return '';
  const left =
    pending.leftParents > 0 ? ` (${pending.leftParents} left by failures; ${pending.lastError})` : '';
  const queued = pending.queuedParents > 0 ? `${pending.queuedParents} parents${left}` : '';
  return pending.everyParent ? ['every parent', queued].filter(Boolean).join(' + ') : queued;
}
