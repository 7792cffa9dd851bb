import type { Settings } from '../../config/settings.js';
import type { OpenStoreOptions } from '../store/open-store.js';
import { configuredStreams } from './select-partitions.js';

/**
 * How every command opens the store of these settings: in STORE_SCHEMA, with the tables of the
 * selected streams only (`streams.include` less `exclude`; a stream run by name gets its table
 * then), the records' sequence field, the runs kept (`sync.keepRunsDays`).
 */
export function storeOptionsOf(settings: Settings): OpenStoreOptions {
  return {
    streams: configuredStreams(settings),
    sequenceField: settings.sequenceField,
    keepRunsDays: settings.sync.keepRunsDays,
    ...(settings.storeSchema === undefined ? {} : { schema: settings.storeSchema }),
  };
}
