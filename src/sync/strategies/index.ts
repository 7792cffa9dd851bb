import type { StreamDefinition } from '../../../config/stream-definition.js';
import type { StreamStrategy } from '../stream-strategy.js';
import { childStrategy } from './child-strategy.js';
import { sequenceStrategy } from './sequence-strategy.js';
import { snapshotStrategy } from './snapshot-strategy.js';
import { windowStrategy } from './window-strategy.js';

/** The strategies by the catalogue's `strategy` field: the only place a definition meets its code. */
export function strategyOf(definition: StreamDefinition): StreamStrategy {
  switch (definition.strategy) {
    case 'sequence':
      return sequenceStrategy as StreamStrategy;
    case 'child':
      return childStrategy as StreamStrategy;
    case 'snapshot':
      return snapshotStrategy as StreamStrategy;
    case 'window':
      return windowStrategy as StreamStrategy;
  }
}
