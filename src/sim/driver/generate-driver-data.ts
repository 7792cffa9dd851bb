import type { TaskClient } from '../records/index.js';
import type { DriverData } from './driver-data.js';
import { createDriverIds } from './driver-ids.js';
import { generateMasterData } from './generate-master-data.js';
import { generateOperatorData } from './generate-operator-data.js';
import type { Rng } from './rng.js';
import { createRng } from './rng.js';
import { clientCategories, companyKinds, companyWords } from './sample-values.js';

const day = 24 * 60 * 60_000;

/** Options of the driver data generator (a subset of SimOptions). */
export interface DriverDataOptions {
  /** Seed of every generated value. @default 1 */
  seed: number;
  /** Operators with data; their ids are "1001", "1002", ... @default 2 */
  operators: number;
  /** Days of rides per operator, the most recent kept (SimOptions.rideDays). @default 7 */
  rideDays: number;
  /** `plain` digit ids or `unsafe` ids that need percent-encoding. @default 'plain' */
  idStyle: 'plain' | 'unsafe';
}

/** Operator ids: digit strings, because `operatorIdSecond` of an activity change is an int32. */
export const operatorIdsFor = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => String(1001 + i));

/**
 * The initial Driver API data: a pure function of the options and the UTC day of `now`, so the
 * same seed gives the same data (times are relative to the start of that day).
 */
export function generateDriverData(options: DriverDataOptions, now: number): DriverData {
  const rng = createRng(options.seed * 7919 + 17);
  const ids = createDriverIds(options.idStyle);
  const operatorIds = operatorIdsFor(options.operators);
  const master = generateMasterData(rng, ids, operatorIds);
  const clients = Array.from({ length: 40 }, () => newClient(rng, ids.next('client')));
  const data: DriverData = {
    ids,
    anchor: Math.floor(now / day) * day,
    operators: new Map(),
    master,
    clients,
    clientBalances: new Map(
      clients.map((client) => [
        client.id,
        {
          clientId: client.id,
          packagingBalances: master.packaging
            .filter((packaging) => packaging.isCarrier && rng.chance(0.6))
            .map((packaging) => ({ packagingId: packaging.id, balance: rng.int(-20, 80) })),
        },
      ]),
    ),
    dossiers: new Map(),
    devices: new Map(),
    questionnaireAnswers: [],
    processedMutations: new Map(),
  };
  for (const operatorId of operatorIds) generateOperatorData(data, rng, operatorId, options.rideDays);
  return data;
}

function newClient(rng: Rng, id: string): TaskClient {
  return {
    id,
    name: `${rng.pick(companyWords)} ${rng.pick(companyKinds)} B.V.`,
    phone: `+31 ${rng.int(10, 79)} ${rng.int(100, 999)} ${rng.int(1000, 9999)}`,
    categories: clientCategories.filter(() => rng.chance(0.25)),
  };
}
