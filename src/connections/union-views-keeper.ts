import type { Settings } from '../../config/settings.js';
import { storeLocation } from '../../config/store-url.js';
import type { Logger } from '../logger.js';
import { refreshUnionViews } from './union-views.js';

/**
 * Keeps the views across connections (`connections views`) right while a worker of all connections
 * runs. `keep` returns at once: the views are made beside the passes over the connections, never
 * in their way (at 200 connections a making takes seconds, and a connection added meanwhile would
 * wait for it to start). `settled` waits for the making in hand.
 */
export interface UnionViewsKeeper {
  keep(settings: Settings, connectionsChanged: boolean): void;
  settled(): Promise<void>;
}

/**
 * A worker of every connection keeps the views of `CONNECTION_VIEWS` (union-views.ts): made when
 * it starts, when its connections change, and when a check every `everyMs` finds that the
 * mirrors' columns did (a new field brought a column). One making at a time per process, one
 * process of the fleet at a time; what is asked meanwhile is made once after it, from the latest
 * connections. A failure is logged and tried again at the next check. Undefined where there is
 * nothing to keep: `off`, or the default connection not on PostgreSQL.
 */
export function unionViewsKeeper(
  file: Settings,
  logger: Logger,
  everyMs = 60_000,
): UnionViewsKeeper | undefined {
  const schema = file.worker.connectionViews;
  if (schema === 'off' || storeLocation(file.storeUrl, file.storeSchema).kind !== 'postgres')
    return undefined;
  let fingerprint: string | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let failure: string | undefined;
  let making: Promise<void> | undefined;
  let next: { settings: Settings; changed: boolean } | undefined;

  const make = async (settings: Settings) => {
    checkedAt = performance.now();
    try {
      const report = await refreshUnionViews(settings, { schema, unlessFingerprint: fingerprint ?? '' });
      fingerprint = report.fingerprint;
      failure = undefined;
      if (report.made)
        logger.info(
          { schema, views: report.views.length, connections: report.connections.length },
          'views across connections made (CONNECTION_VIEWS)',
        );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (failure !== message)
        logger.warn({ schema, error: message }, 'views across connections not made; tried again soon');
      failure = message;
    }
  };
  const start = () => {
    const asked = next;
    next = undefined;
    if (!asked || (!asked.changed && performance.now() - checkedAt < everyMs)) return;
    making = make(asked.settings).finally(() => {
      making = undefined;
      start();
    });
  };
  return {
    keep(settings, connectionsChanged) {
      next = { settings, changed: connectionsChanged || (next?.changed ?? false) };
      if (!making) start();
    },
    async settled() {
      while (making) await making;
    },
  };
}
