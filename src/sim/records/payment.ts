import { type Static, Type } from '@sinclair/typebox';
import { CalendarDate, DateTime, Sequence } from './record-parts.js';

/** Body of POST /invoice/invoices/{id}/payments, docs/api.md, Records. */
export const NewPayment = Type.Object({
  amount: Type.Number({ exclusiveMinimum: 0 }),
  date: CalendarDate,
  reference: Type.String(),
});
export type NewPayment = Static<typeof NewPayment>;

/** A recorded payment. Fields beyond the three of docs/api.md, Records chosen here. */
export const Payment = Type.Object({
  id: Type.String(),
  invoiceId: Type.String(),
  amount: Type.Number(),
  date: CalendarDate,
  reference: Type.String(),
  createdAt: DateTime,
  sequence: Type.Optional(Sequence),
});
export type Payment = Static<typeof Payment>;
