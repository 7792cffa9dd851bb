import type { JsonObject } from '../../schemas/json-object.js';
import type { NewPayment } from '../../schemas/write-bodies.js';
import { type ApiCalls, type CallOptions, restRequest } from './api-calls.js';
import { listings } from './listings.js';
import type { PageOptions } from './paginate.js';
import { buildPath } from './request-path.js';

type PaymentsPath = (typeof listings.invoicePayments)['path'];

const invoicePath = (invoiceId: string) => buildPath('/invoice/invoices/{invoiceId}', { invoiceId });

/**
 * The invoice service, docs/api.md, Operations. Writes answer the record when the server sends one (validated
 * against the listing schema; a detail passes too), else undefined. finalize, cancel and
 * recordPayment are POSTs: after an ambiguous failure they throw AmbiguousWriteError, never repeat.
 */
export function createInvoiceService(api: ApiCalls) {
  return {
    /** Pages of GET /invoice/invoices/ (`since`, `cursor`, `sort`, `status: 'deleted'`). */
    listInvoices: (options: PageOptions<'/invoice/invoices/'> = {}) => api.pages(listings.invoices, options),
    /** The invoice with its lines. */
    getInvoice: (invoiceId: string, call?: CallOptions) =>
      api.record(restRequest('GET', invoicePath(invoiceId), call)),
    /** Merge-patch; preliminary-only fields answer 409 once finalized. */
    patchInvoice: (invoiceId: string, patch: JsonObject, call?: CallOptions) =>
      api.write(restRequest('PATCH', invoicePath(invoiceId), call, patch)),
    finalizeInvoice: (invoiceId: string, call?: CallOptions) =>
      api.write(restRequest('POST', `${invoicePath(invoiceId)}/finalize`, call)),
    cancelInvoice: (invoiceId: string, call?: CallOptions) =>
      api.write(restRequest('POST', `${invoicePath(invoiceId)}/cancel`, call)),
    /** Deletes a preliminary invoice. */
    deleteInvoice: (invoiceId: string, call?: CallOptions) =>
      api.send(restRequest('DELETE', invoicePath(invoiceId), call)),
    recordPayment: (invoiceId: string, payment: NewPayment, call?: CallOptions) =>
      api.write(restRequest('POST', `${invoicePath(invoiceId)}/payments`, call, payment)),
    /** Pages of an invoice's payments (paginated like every listing). */
    listPayments: (options: PageOptions<PaymentsPath>) => api.pages(listings.invoicePayments, options),
    removePayment: (invoiceId: string, paymentId: string, call?: CallOptions) =>
      api.send(
        restRequest(
          'DELETE',
          buildPath('/invoice/invoices/{invoiceId}/payments/{paymentId}', { invoiceId, paymentId }),
          call,
        ),
      ),
  };
}
