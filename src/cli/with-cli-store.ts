import { loadSettings } from '../../config/load-settings.js';
import type { Settings } from '../../config/settings.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { cliLogger } from './cli-logger.js';

/** Runs `use` with the store of STORE_URL, closed afterwards whatever happens. */
export async function withCliStore<T>(use: (store: Store, settings: Settings) => Promise<T>): Promise<T> {
  const settings = loadSettings();
  const store = await openStore(settings.storeUrl, { logger: cliLogger(settings) });
  try {
    return await use(store, settings);
  } finally {
    await store.close();
  }
}
