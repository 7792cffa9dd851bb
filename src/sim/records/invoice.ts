import { type Static, Type } from '@sinclair/typebox';
import { CalendarDate, DateTime, Nullable, Sequence } from './record-parts.js';

// docs/api.md shows only `id`, `modifiedAt` and the sequence of invoices (docs/api.md, Records); the rest is chosen here.

export const InvoiceStatus = Type.Union([
  Type.Literal('preliminary'),
  Type.Literal('finalized'),
  Type.Literal('cancelled'),
  Type.Literal('deleted'),
]);

/** A line of an invoice; only the detail (GET /invoice/invoices/{id}) carries lines. */
export const InvoiceLine = Type.Object({
  id: Type.String(),
  description: Type.String(),
  productCode: Type.String(),
  quantity: Type.Number(),
  unitPrice: Type.Number(),
  vatRate: Type.Number(),
  amount: Type.Number(),
});
export type InvoiceLine = Static<typeof InvoiceLine>;

const InvoiceFields = {
  id: Type.String(),
  number: Type.String(),
  status: InvoiceStatus,
  clientId: Type.String(),
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  issueDate: Nullable(CalendarDate),
  dueDate: Nullable(CalendarDate),
  reference: Type.String(),
  notes: Type.String(),
  totals: Type.Object({ net: Type.Number(), vat: Type.Number(), gross: Type.Number() }),
  paidAmount: Type.Number(),
  modifiedAt: DateTime,
  sequence: Type.Optional(Sequence),
};

/** Invoice as listed by GET /invoice/invoices/. */
export const Invoice = Type.Object(InvoiceFields);
export type Invoice = Static<typeof Invoice>;

/** Invoice detail with line-level data, GET /invoice/invoices/{id}. */
export const InvoiceDetail = Type.Object({ ...InvoiceFields, lines: Type.Array(InvoiceLine) });
export type InvoiceDetail = Static<typeof InvoiceDetail>;

/** Fields patchable only while the invoice is preliminary (else 409). */
export const preliminaryOnlyInvoiceFields = ['clientId', 'currency', 'issueDate', 'lines'] as const;

/** PATCH /invoice/invoices/{id} body (merge-patch). */
export const InvoicePatch = Type.Object(
  {
    clientId: Type.Optional(Type.String({ minLength: 1 })),
    currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
    issueDate: Type.Optional(Nullable(CalendarDate)),
    lines: Type.Optional(Type.Array(Type.Omit(InvoiceLine, ['id', 'amount']))),
    dueDate: Type.Optional(Nullable(CalendarDate)),
    reference: Type.Optional(Type.String()),
    notes: Type.Optional(Type.String()),
  },
  { minProperties: 1 },
);
export type InvoicePatch = Static<typeof InvoicePatch>;
