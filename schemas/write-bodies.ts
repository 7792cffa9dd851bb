import type { JsonObject } from './json-object.js';

// Request bodies whose fields docs/api.md shows (2.4). Every other write body is a JSON object the
// caller composes for its TMS; docs/api.md does not show those shapes.

/** POST /invoice/invoices/{id}/payments: the three fields docs/api.md shows, and any the TMS takes. */
export interface NewPayment extends JsonObject {
  amount: number;
  /** Calendar date `YYYY-MM-DD`. */
  date: string;
  reference: string;
}

/** PATCH /client/clients/{id} (merge-patch); docs/api.md's example patches `phone`. */
export interface ClientPatch extends JsonObject {
  phone?: string;
}

/** POST /driver-api/questionnaires/{id}/answers, docs/api.md, Records. */
export interface QuestionnaireAnswers extends JsonObject {
  triggerQuestionKey: string;
  taskIds: string[];
  rideId: string;
  goodId: string;
  traceTypeId: string;
  /** ISO 8601 date-time. */
  completedAt: string;
  answers: Array<{ key: string; answerType: string; value: string }>;
}
