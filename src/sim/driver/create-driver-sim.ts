import type { SimContext } from '../sim-context.js';
import type { DriverSim } from './driver-sim.js';

// Placeholder until the Driver API lands: no routes, no data.
export function createDriverSim(_ctx: SimContext): DriverSim {
  return {
    register() {},
    truth: () => ({}),
    applyRandomChange: () => ({ kind: 'none', stream: 'tasks', id: '' }),
  };
}
