import type { FastifyReply } from 'fastify';
import type { AccessGuard } from '../auth/access-guard.js';
import type { SimData } from '../data/sim-data.js';
import type { ListingEngine } from '../listing/listing-engine.js';
import type { SimVariant } from '../sim-options.js';

/** What the REST service routes need from the core. */
export interface ServiceDeps {
  readonly data: SimData;
  readonly guard: AccessGuard;
  readonly listings: ListingEngine;
  readonly variant: SimVariant;
}

/** Sends a JSON text as is: pages and records are built as strings, never re-serialized. */
export function sendJson(reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(json);
}

/** A single resource in the variant's envelope: `{"data": record}` or `{"data": {"items": [record]}}`. */
export function singleEnvelope(recordJson: string, variant: SimVariant): string {
  return variant.singleEnvelope === 'items' ? `{"data":{"items":[${recordJson}]}}` : `{"data":${recordJson}}`;
}

export type IdParams = Record<string, string>;
