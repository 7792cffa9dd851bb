import type { Settings } from '../../config/settings.js';
import type { TmsClient } from '../client/index.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';

/** What every strategy works with: the TMS client, the store, the settings, a logger and a clock. */
export interface EngineContext {
  readonly client: TmsClient;
  readonly store: Store;
  readonly settings: Settings;
  readonly logger: Logger;
  /** The engine's clock; tests inject one. */
  readonly now: () => Date;
}
