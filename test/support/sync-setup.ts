import { defaultSettings, type Settings } from '../../config/settings.js';
import { createLogger } from '../../src/logger.js';
import { createSimAdminClient, type SimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, type StartSimOptions, startSim } from '../../src/sim/start-sim.js';
import type { Store } from '../../src/store/store.js';
import { createSyncEngine, type SyncEngine, type SyncEngineOptions } from '../../src/sync/sync-engine.js';

/** A simulator, its admin client, and an engine syncing it into the given store. */
export interface SyncSetup {
  readonly sim: SimHandle;
  readonly admin: SimAdminClient;
  readonly engine: SyncEngine;
  readonly settings: Settings;
  close(): Promise<void>;
}

export async function startSyncSetup(
  store: Store,
  simOptions: StartSimOptions = {},
  settings: Partial<Settings> = {},
  engineOptions: Pick<SyncEngineOptions, 'clientOptions'> = {},
): Promise<SyncSetup> {
  const sim = await startSim({ invoices: 300, clients: 60, operators: 2, ...simOptions });
  const admin = createSimAdminClient({ url: sim.url });
  const operators = Object.keys((await admin.truth('settings')).settings ?? {});
  const merged: Settings = {
    ...defaultSettings,
    baseUrl: sim.url,
    apiToken: sim.options.apiToken,
    operators,
    storeUrl: 'sqlite::unused:',
    sequenceField: sim.options.variant.sequenceField,
    ...settings,
    sync: { ...defaultSettings.sync, pageLimit: 100, ...settings.sync },
  };
  const engine = await createSyncEngine({
    settings: merged,
    logger: createLogger({ level: 'silent' }),
    store,
    ...engineOptions,
  });
  return {
    sim,
    admin,
    engine,
    settings: merged,
    async close() {
      await engine.close();
      await sim.close();
    },
  };
}
