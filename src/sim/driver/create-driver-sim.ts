import { createRecordShapes } from '../records/record-shapes.js';
import type { SimContext } from '../sim-context.js';
import type { DriverSim } from './driver-sim.js';
import { driverTruth } from './driver-truth.js';
import { generateDriverData } from './generate-driver-data.js';
import { applyRandomChange } from './random-change.js';
import { registerDriverRoutes } from './register-driver-routes.js';
import { createResponseCache } from './response-cache.js';
import { rngFrom } from './rng.js';

/**
 * The Driver API part of the simulator: data generated from the seed, operator count and id style
 * (operators "1001", "1002", ...), the routes of docs/api.md, Operations, its truth and its random changes, which
 * draw from the core's seeded `ctx.random`.
 */
export function createDriverSim(ctx: SimContext): DriverSim {
  const { seed, operators, rideDays, variant } = ctx.options;
  // Driver API ids take no dot segments: `dots` concerns the REST records only.
  const idStyle = variant.idStyle === 'unsafe' ? 'unsafe' : 'plain';
  const data = generateDriverData({ seed, operators, rideDays, idStyle }, ctx.now());
  const cache = createResponseCache();
  const rng = rngFrom(() => ctx.random());
  const shapes = createRecordShapes(variant);
  return {
    register: (app) => registerDriverRoutes(app, { ctx, data, cache, shapes }),
    truth: () => driverTruth(data, shapes),
    applyRandomChange() {
      const change = applyRandomChange(data, rng, ctx.now());
      cache.clear();
      return change;
    },
  };
}
