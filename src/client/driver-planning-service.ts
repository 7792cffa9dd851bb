import type { JsonObject } from '../../schemas/json-object.js';
import { type ApiCalls, type DriverCallOptions, driverRequest } from './api-calls.js';
import { buildPath } from './request-path.js';

/** Ids for an `ids` query parameter: an array (joined with commas) or a ready string. */
export type IdList = readonly string[] | string;

type WithIds = DriverCallOptions & { ids: IdList };

/**
 * Driver API, planning side (docs/api.md, Operations): tasks, rides, goods, balances, planning and the driver's
 * writes. Writes answer nothing; POSTs are creates (AmbiguousWriteError after an ambiguous failure:
 * pass a `mutationId` and ask getProcessedMutations). PATCH and PUT are repeated safely.
 */
export function createDriverPlanningService(api: ApiCalls) {
  return {
    getRides: (call?: DriverCallOptions) => api.list(driverRequest('GET', '/driver-api/rides/', call)),
    patchRide: (rideId: string | number, update: JsonObject, call?: DriverCallOptions) =>
      api.send(
        driverRequest('PATCH', buildPath('/driver-api/rides/{rideId}', { rideId }), call, { body: update }),
      ),
    getTasks: (call: DriverCallOptions & { ids?: IdList } = {}) =>
      api.list(driverRequest('GET', '/driver-api/tasks/', call, { query: { ids: call.ids } })),
    patchTask: (taskId: string, update: JsonObject, call?: DriverCallOptions) =>
      api.send(
        driverRequest('PATCH', buildPath('/driver-api/tasks/{taskId}', { taskId }), call, { body: update }),
      ),
    getTaskPackagingBalances: (call: WithIds) =>
      api.list(
        driverRequest('GET', '/driver-api/tasks/packaging-balances', call, { query: { ids: call.ids } }),
      ),
    getGoods: (call: WithIds) =>
      api.list(driverRequest('GET', '/driver-api/goods/', call, { query: { ids: call.ids } })),
    addGood: (good: JsonObject, call?: DriverCallOptions) =>
      api.send(driverRequest('POST', '/driver-api/goods/', call, { body: good })),
    addScanTrace: (goodId: string, trace: JsonObject, call?: DriverCallOptions) =>
      api.send(
        driverRequest('POST', buildPath('/driver-api/goods/{goodId}/scan-traces', { goodId }), call, {
          body: trace,
        }),
      ),
    addRefuelingStop: (vehicleId: string, stop: JsonObject, call?: DriverCallOptions) =>
      api.send(
        driverRequest(
          'POST',
          buildPath('/driver-api/vehicles/{vehicleId}/refueling-stops', { vehicleId }),
          call,
          { body: stop },
        ),
      ),
    addActivityChange: (change: JsonObject, call?: DriverCallOptions) =>
      api.send(driverRequest('POST', '/driver-api/activity-changes/', call, { body: change })),
    addTrackingPosition: (position: JsonObject, call?: DriverCallOptions) =>
      api.send(driverRequest('POST', '/driver-api/tracking-positions/', call, { body: position })),
    /** `use: 'legacy'` is for internal testing only (docs/api.md, Operations); omit it in production. */
    getPlanning: (call: DriverCallOptions & { use?: 'legacy' } = {}) =>
      api.record(driverRequest('GET', '/driver-api/planning/', call, { query: { use: call.use } })),
    getClientPackagingBalances: (call: WithIds) =>
      api.list(
        driverRequest('GET', '/driver-api/clients/packaging-balances', call, { query: { ids: call.ids } }),
      ),
    /** Which of the given mutations the TMS has processed; a read, so repeated safely. */
    getProcessedMutations: (mutationIds: readonly string[], call?: DriverCallOptions) =>
      api.list(
        driverRequest('POST', '/driver-api/get-processed-mutations/', call, {
          body: { mutationIds },
          idempotent: true,
        }),
      ),
  };
}
