import type { Redis } from 'ioredis';
import pMap from 'p-map';
import { connectionNames, resolveConnection } from '../../config/resolve-connection.js';
import type { Settings } from '../../config/settings.js';
import { followConnectionNews } from '../../jobs/connection-news.js';
import { type FleetMembers, joinFleet } from '../../jobs/fleet-members.js';
import { createFleetPace } from '../../jobs/fleet-pace.js';
import { createRunSlots } from '../../jobs/run-slots.js';
import { openSyncQueue } from '../../jobs/sync-queue.js';
import { heartbeatKey } from '../../jobs/worker-heartbeat.js';
import { startCommandDelivery } from '../../jobs/write-back-delivery.js';
import { controlRowsReader } from '../connections/connection-control.js';
import { withStoredConnections } from '../connections/stored-connections.js';
import { unionViewsKeeper } from '../connections/union-views-keeper.js';
import type { Logger } from '../logger.js';
import { type ConnectionWorker, openConnectionWorker } from './connection-worker.js';

export interface WorkerFleetOptions {
  /** The settings as loaded (the default connection and the config file's), before the control table. */
  readonly file: Settings;
  readonly redis: Redis;
  readonly logger: Logger;
  /** How often the connections are read again (`connections add|pause|resume|remove`). @default 5000 */
  readonly everyMs?: number;
  /** Where token references are read. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** How often the process says it is in the fleet and reads the others (fleet-members.ts). @default 2000 */
  readonly beatMs?: number;
}

/** The connections one worker process serves (`worker --all-connections`). */
export interface WorkerFleet {
  /** The connections running in this process now. */
  running(): ConnectionWorker[];
  /** The processes of the fleet, as this one last read them (ids, sorted). */
  members(): readonly string[];
  /** Stops every connection's jobs, then closes them (sync-worker.ts `stop`); false when one had to force. */
  stop(timeoutMs: number): Promise<boolean>;
}

/**
 * Runs the connections that are not paused (the default, the config file's and the control
 * table's) and that this process owns among the fleet's live processes (WORKER_CONNECTION_OWNERS
 * of them run each; fleet-members.ts), each on its own queue and store, all within WORKER_CONCURRENCY runs at
 * once and each within WORKER_CONNECTION_CONCURRENCY over the fleet (its queue's global
 * concurrency). Reads the connections every `everyMs`, and at once on news of a change
 * (connection-news.ts): one added starts (its schedulers, its backfill), one paused, removed or
 * changed stops (its runs in hand finish within half of `everyMs`, or stop after their page and
 * resume from their checkpoint). A process joining or lost moves only its share of the connections:
 * one handed over stops here as a paused one does and starts in its new owner. A connection that cannot start (a
 * token reference unset, its store away) is parked with its reason logged, and tried again.
 */
export async function startWorkerFleet(options: WorkerFleetOptions): Promise<WorkerFleet> {
  const { file, redis, logger } = options;
  const everyMs = options.everyMs ?? 5000;
  const slots = createRunSlots(file.worker.concurrency);
  const fleetShare = {
    slots,
    concurrency: Math.min(file.worker.connectionConcurrency, file.worker.concurrency),
    pace: createFleetPace({ redis, settings: file.worker }),
  };
  // One delivery for all connections: their outboxes asked together (one statement per database).
  const delivery = startCommandDelivery({ everyMs: file.commands.everyMs });
  const running = new Map<string, { worker: ConnectionWorker; shape: string }>();
  const parked = new Map<string, string>();
  const control = controlRowsReader(file);
  const keepViews = unionViewsKeeper(file, logger);
  let stopped = false;
  let fleet: FleetMembers | undefined;
  // Every unpaused connection, as the last pass read them: the fleet shares them out.
  let fleetNames: readonly string[] = [];
  const owns = (name: string) => fleet?.owned(fleetNames).has(name) ?? true;
  let lastFleetShape: string | undefined;

  const stopOne = async (name: string, why: string) => {
    const entry = running.get(name)!;
    running.delete(name);
    logger.info({ connection: name }, `connection ${why}: no new job taken`);
    await entry.worker.stop(file.worker.shutdownTimeoutMs, { finishWithinMs: everyMs / 2 });
    await entry.worker.close();
    // A removed connection's schedulers would stay in Redis for good, each with its next job: gone
    // with its queue (every worker process may do it; a second finds nothing). Its store stays.
    if (why === 'removed')
      await forgetQueue(entry.worker.settings, redis, logger.child({ connection: name }));
  };
  // The control table is in the default connection's store: while it cannot be read, those running
  // keep running, and a first start runs the config file's connections.
  const readWanted = async (first: boolean): Promise<Settings | undefined> => {
    try {
      return withStoredConnections(file, await control.rows());
    } catch (error) {
      const then = first ? "starting the config file's" : 'those running keep running';
      logger.warn({ err: error }, `cannot read the connections of the control table: ${then}`);
      return first ? file : undefined;
    }
  };
  const startOne = async (name: string, wanted: Settings, shape: string) => {
    // The members may have changed since the pass began (a fleet starting together).
    if (stopped || !owns(name)) return;
    const log = logger.child({ connection: name });
    try {
      const settings = resolveConnection(wanted, name, options.env);
      const worker = await openConnectionWorker({
        settings,
        redis,
        logger: log,
        fleet: fleetShare,
        delivery,
      });
      try {
        // The limit is the queue's, in Redis: every worker process of the fleet keeps to it.
        await worker.queue.setGlobalConcurrency(file.worker.connectionConcurrency);
        // A queue paused by a one-connection worker's pause follower: this connection runs now.
        if (await worker.queue.isPaused()) await worker.queue.resume();
        await worker.start();
      } catch (error) {
        await worker.stop(0);
        await worker.close();
        throw error;
      }
      worker.metrics.registry.setDefaultLabels({ connection: name });
      running.set(name, { worker, shape });
      parked.delete(name);
      log.info({ queue: settings.worker.queueName }, 'connection started');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (parked.get(name) !== reason)
        log.error({ reason }, 'connection parked: it cannot start; tried again');
      parked.set(name, reason);
    }
  };
  const refresh = async (first = false) => {
    const wanted = await readWanted(first);
    if (wanted === undefined) return;
    const unpaused = new Map(
      connectionNames(wanted)
        .filter((name) => wanted.connections[name]?.paused !== true)
        .map((name) => [name, shapeOf(wanted, name)]),
    );
    fleetNames = [...unpaused.keys()];
    const active = new Map([...unpaused].filter(([name]) => owns(name)));
    const gone = [...running].filter(([name, entry]) => active.get(name) !== entry.shape);
    const why = (name: string) =>
      active.has(name)
        ? 'changed'
        : unpaused.has(name)
          ? 'handed over to another worker'
          : wanted.connections[name]
            ? 'paused'
            : 'removed';
    await Promise.all(gone.map(([name]) => stopOne(name, why(name))));
    for (const name of parked.keys()) if (!active.has(name)) parked.delete(name);
    // In an order of its own per process: the workers of a fleet that start together migrate
    // different schemas at once instead of queueing on the same schema's lock.
    const added = shuffled([...active].filter(([name]) => !running.has(name)));
    // A few at once: each opens (and may migrate) its store.
    await pMap(added, ([name, shape]) => startOne(name, wanted, shape), { concurrency: startsInFlight });
    // A connection handed over changes no view; one added, removed or changed anywhere does.
    const fleetShape = JSON.stringify([...unpaused]);
    keepViews?.keep(wanted, fleetShape !== lastFleetShape || added.length > 0);
    lastFleetShape = fleetShape;
  };

  // One pass at a time: a pass that starts many connections may take longer than `everyMs`. News
  // of a change (`connections add|pause|resume|remove`, a process joining or lost) passes at once,
  // or right after the pass in hand.
  let passing: Promise<void> | undefined;
  let newsWaiting = false;
  const afterPass = () => {
    passing = undefined;
    if (newsWaiting) {
      newsWaiting = false;
      pass(true);
    }
  };
  const pass = (news: boolean) => {
    if (stopped) return;
    if (passing) {
      newsWaiting ||= news;
      return;
    }
    passing = refresh()
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'a pass over the connections failed; next pass soon'),
      )
      .finally(afterPass);
  };
  fleet = await joinFleet({
    redis,
    settings: file.worker,
    beatMs: options.beatMs,
    // Not on the first beat (fleet unset yet): the first pass below reads its members.
    onChange: () => {
      if (!fleet) return;
      logger.info({ members: fleet.members().length }, 'the fleet changed: its connections are shared again');
      pass(true);
    },
  });
  const first = refresh(true);
  passing = first.catch(() => undefined).finally(afterPass);
  await first;
  const timer = setInterval(() => pass(false), everyMs);
  timer.unref();
  const news = await followConnectionNews(redis, file, () => pass(true)).catch((error: unknown) => {
    logger.warn({ err: error }, 'no news of connection changes: they are read every pass');
    return undefined;
  });
  return {
    running: () => [...running.values()].map((entry) => entry.worker),
    members: () => fleet?.members() ?? [],
    async stop(timeoutMs) {
      stopped = true;
      clearInterval(timer);
      // The others take this process's connections at their next beat, while these finish.
      await fleet?.leave();
      await news?.stop();
      await passing;
      await keepViews?.settled();
      const workers = [...running.values()].map((entry) => entry.worker);
      running.clear();
      const graceful = await Promise.all(workers.map((worker) => worker.stop(timeoutMs)));
      await delivery.stop(0);
      await Promise.all(workers.map((worker) => worker.close()));
      await control.close();
      return graceful.every(Boolean);
    },
  };
}

/** Deletes every key of the connection's queue, its workers' heartbeats included (after their last). */
async function forgetQueue(settings: Settings, redis: Redis, logger: Logger): Promise<void> {
  const queue = openSyncQueue(settings, redis);
  try {
    await queue.obliterate({ force: true });
    await redis.del(heartbeatKey(settings.worker));
  } catch (error) {
    logger.warn({ err: error }, "the removed connection's queue is left in Redis");
  } finally {
    await queue.close();
  }
}

/** What a running connection restarts on when it changes: its entry, less `paused` (a resume changes nothing). */
function shapeOf(settings: Settings, name: string): string {
  const { paused: _paused, ...entry } = settings.connections[name] ?? {};
  return JSON.stringify(entry);
}

function shuffled<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** Connections opened at once when many start (a fleet's first start, a batch of `connections add`). */
const startsInFlight = 8;
