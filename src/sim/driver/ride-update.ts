import type { Ride, RideUpdate } from '../records/index.js';
import { SimHttpError } from '../sim-http-error.js';

/**
 * Start or end a ride: planned -> started -> ended (chosen here; docs/api.md, States shows no states).
 * Repeating the same start or end is accepted (same state); anything else out of order is a 409.
 */
export function patchRide(ride: Ride, update: RideUpdate): Ride {
  const { action, at } = update;
  const replay = action === 'start' ? ride.actual.start === at : ride.actual.end === at;
  if (replay) return ride;
  const from: Ride['status'] = action === 'start' ? 'planned' : 'started';
  if (ride.status !== from) {
    throw new SimHttpError(409, 'invalid_transition', `cannot ${action} a ${ride.status} ride`, {
      status: ride.status,
      action,
    });
  }
  return action === 'start'
    ? { ...ride, status: 'started', actual: { start: at, end: null } }
    : { ...ride, status: 'ended', actual: { ...ride.actual, end: at } };
}
