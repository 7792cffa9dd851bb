import type { SimData } from '../data/sim-data.js';
import type { DriverSim } from '../driver/driver-sim.js';
import type { Picker } from '../seeded-random.js';
import { type ChangeCandidate, restChangeCandidates } from './rest-change-candidates.js';
import type { SimChange } from './sim-change.js';

/** Restricts the random changes, e.g. `{kinds: ['hardDelete'], streams: ['invoices']}`; `driver` names every Driver API change. */
export interface ChangeFilter {
  readonly kinds?: readonly string[];
  readonly streams?: readonly string[];
}

/**
 * Applies `count` random changes drawn from `pick`: creates, updates, state transitions, soft and
 * hard deletes, payments, contacts, address-book group changes and Driver API changes. A draw that
 * finds no fitting record is retried with another candidate; answers what was done.
 */
export function applyRandomChanges(
  deps: { data: SimData; driver: DriverSim },
  options: { count: number; pick: Picker; filter?: ChangeFilter },
): SimChange[] {
  const candidates = [...restChangeCandidates(deps.data), driverCandidate(deps.driver)].filter((candidate) =>
    matches(candidate, options.filter),
  );
  const total = candidates.reduce((sum, candidate) => sum + candidate.weight, 0);
  const changes: SimChange[] = [];
  for (let made = 0; made < options.count && total > 0; made++) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const change = drawCandidate(candidates, total, options.pick).apply(options.pick);
      if (change) {
        changes.push(change);
        break;
      }
    }
  }
  return changes;
}

function drawCandidate(candidates: readonly ChangeCandidate[], total: number, pick: Picker): ChangeCandidate {
  let roll = pick.next() * total;
  for (const candidate of candidates) {
    roll -= candidate.weight;
    if (roll < 0) return candidate;
  }
  return candidates.at(-1)!;
}

function matches(candidate: ChangeCandidate, filter: ChangeFilter | undefined): boolean {
  if (candidate.stream === 'driver')
    return !filter?.kinds && (!filter?.streams || filter.streams.includes('driver'));
  return (
    (!filter?.kinds || filter.kinds.includes(candidate.kind)) &&
    (!filter?.streams || filter.streams.includes(candidate.stream))
  );
}

function driverCandidate(driver: DriverSim): ChangeCandidate {
  return {
    stream: 'driver',
    kind: 'any',
    weight: 20,
    apply() {
      const change = driver.applyRandomChange();
      return change.kind === 'none' ? undefined : { ...change };
    },
  };
}
