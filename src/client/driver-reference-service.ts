import type { JsonObject } from '../../schemas/json-object.js';
import { type ApiCalls, type CallOptions, type DriverCallOptions, driverRequest } from './api-calls.js';
import { buildPath } from './request-path.js';

/** Driver API master data, settings and device registration (docs/api.md, Operations). */
export function createDriverReferenceService(api: ApiCalls) {
  return {
    getVehicles: (call?: CallOptions) => api.list(driverRequest('GET', '/driver-api/vehicles/', call)),
    getTrailers: (call?: CallOptions) => api.list(driverRequest('GET', '/driver-api/trailers/', call)),
    getLogo: (logoId: string | number, call?: CallOptions) =>
      api.record(driverRequest('GET', buildPath('/driver-api/logo/{logoId}', { logoId }), call)),
    getSettings: (call?: DriverCallOptions) =>
      api.record(driverRequest('GET', '/driver-api/settings/', call)),
    getColorProfiles: (call?: DriverCallOptions) =>
      api.list(driverRequest('GET', '/driver-api/settings/color-profile', call)),
    getVersion: (call?: CallOptions) =>
      api.record(driverRequest('GET', '/driver-api/settings/version', call)),
    /** A POST that creates a registration: not repeated after an ambiguous failure. */
    registerPush: (registration: JsonObject, call?: DriverCallOptions) =>
      api.send(
        driverRequest('POST', '/driver-api/settings/push-registrations', call, { body: registration }),
      ),
    getDriverContacts: (call?: CallOptions) => api.list(driverRequest('GET', '/driver-api/contacts', call)),
    getTraceTypes: (call?: CallOptions) => api.list(driverRequest('GET', '/driver-api/trace-types', call)),
    getPackaging: (call?: CallOptions) => api.list(driverRequest('GET', '/driver-api/packaging', call)),
    getCompletionStatuses: (call?: CallOptions) =>
      api.list(driverRequest('GET', '/driver-api/completion-statuses', call)),
    getActivities: (call?: CallOptions) => api.list(driverRequest('GET', '/driver-api/activities/', call)),
    /** Creates or updates the device by hardware code (PUT: repeated safely). */
    upsertDevice: (hardwareCode: string, device: JsonObject, call?: DriverCallOptions) =>
      api.send(
        driverRequest('PUT', buildPath('/driver-api/devices/{hardwareCode}', { hardwareCode }), call, {
          body: device,
        }),
      ),
  };
}
