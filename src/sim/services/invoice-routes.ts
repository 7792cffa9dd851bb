import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvoicePatch, NewPayment } from '../records/index.js';
import { createBodyChecker } from './body-checker.js';
import { type IdParams, type ServiceDeps, sendJson, singleEnvelope } from './service-deps.js';

const checkPatch = createBodyChecker(InvoicePatch);
const checkPayment = createBodyChecker(NewPayment);

/** The Invoice service, docs/api.md, Operations (state machine in docs/simulator.md). */
export function registerInvoiceRoutes(app: FastifyInstance, deps: ServiceDeps): void {
  const { guard, listings, variant } = deps;
  const invoices = deps.data.invoices;
  const invoiceOf = (request: FastifyRequest) => {
    guard.requireService(request, 'invoice');
    return invoices.find((request.params as IdParams).invoiceId!);
  };
  const detail = (index: number) => singleEnvelope(invoices.detailJson(index), variant);
  const base = '/invoice/invoices';

  app.get(`${base}/`, (request, reply) => {
    guard.requireService(request, 'invoice');
    return sendJson(reply, 200, listings.page(invoices.listing(), request.query as Record<string, unknown>));
  });
  app.get(`${base}/:invoiceId`, (request, reply) => sendJson(reply, 200, detail(invoiceOf(request))));
  app.patch(`${base}/:invoiceId`, (request, reply) => {
    const index = invoiceOf(request);
    invoices.patch(index, checkPatch(request.body));
    return sendJson(reply, 200, detail(index));
  });
  app.post(`${base}/:invoiceId/finalize`, (request, reply) => {
    const index = invoiceOf(request);
    invoices.finalize(index);
    return sendJson(reply, 200, detail(index));
  });
  app.post(`${base}/:invoiceId/cancel`, (request, reply) => {
    const index = invoiceOf(request);
    invoices.cancel(index);
    return sendJson(reply, 200, detail(index));
  });
  app.delete(`${base}/:invoiceId`, (request, reply) => {
    invoices.softDelete(invoiceOf(request));
    return reply.code(204).send();
  });
  app.get(`${base}/:invoiceId/payments`, (request, reply) => {
    const source = invoices.payments(invoiceOf(request));
    return sendJson(reply, 200, listings.page(source, request.query as Record<string, unknown>));
  });
  app.post(`${base}/:invoiceId/payments`, (request, reply) => {
    const index = invoiceOf(request);
    const payment = invoices.addPayment(index, checkPayment(request.body));
    return sendJson(reply, 201, singleEnvelope(invoices.paymentJson(payment), variant));
  });
  app.delete(`${base}/:invoiceId/payments/:paymentId`, (request, reply) => {
    invoices.removePayment(invoiceOf(request), (request.params as IdParams).paymentId!);
    return reply.code(204).send();
  });
}
