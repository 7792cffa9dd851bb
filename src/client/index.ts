// The TMS client's public surface.
export type { ApiCalls, CallOptions, DriverCallOptions, ReceivedAnswer } from './api-calls.js';
export * from './client-errors.js';
export {
  clientDefaults,
  type RetryOptions,
  type TimeoutOptions,
  type TmsClientOptions,
} from './client-options.js';
export {
  createTmsClient,
  type ResourceCall,
  type ResourceDefinition,
  type TmsClient,
} from './create-tms-client.js';
export type { DossierDownload, DossierUpload } from './driver-messaging-service.js';
export type { IdList } from './driver-planning-service.js';
export { type ListingName, listings } from './listings.js';
export type { ListingDefinition, Page, PageOptions, PageQuery } from './paginate.js';
export { createLocalBudget, type RequestBudget } from './request-budget.js';
export { parseRetryAfter, retryDelayMs } from './retry-policy.js';
export type { ClientTraffic } from './send-gate.js';
