import type { Settings } from '../../config/settings.js';
import { loadConnection } from '../connections/load-connection.js';
import { type OpenStoreOptions, openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { storeOptionsOf } from '../sync/store-options.js';
import { cliLogger } from './cli-logger.js';

/** The store of STORE_URL as the settings open it (store-options.ts), with the command's logger. */
export function openCliStore(settings: Settings, options: OpenStoreOptions = {}): Promise<Store> {
  return openStore(settings.storeUrl, {
    ...storeOptionsOf(settings),
    logger: cliLogger(settings),
    ...options,
  });
}

/** Runs `use` with the store of the connection (STORE_URL for the default one), closed afterwards whatever happens. */
export async function withCliStore<T>(
  connection: string,
  use: (store: Store, settings: Settings) => Promise<T>,
): Promise<T> {
  const settings = await loadConnection(connection);
  const store = await openCliStore(settings);
  try {
    return await use(store, settings);
  } finally {
    await store.close();
  }
}
