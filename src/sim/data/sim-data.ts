import { createRecordShapes } from '../records/record-shapes.js';
import type { SimOptions } from '../sim-options.js';
import {
  baseSequences,
  createSequenceCounter,
  firstSequence,
  type SequenceCounter,
  sequenceStride,
} from '../tables/sequence-counter.js';
import { type ClientStore, createClientStore } from './client-store.js';
import { createIdFormat } from './id-format.js';
import { createInvoiceStore, type InvoiceStore } from './invoice-store.js';
import { dayOf } from './record-time.js';

/** All REST data of one simulator: invoices, clients, and the one sequence counter they share. */
export interface SimData {
  readonly counter: SequenceCounter;
  readonly invoices: InvoiceStore;
  readonly clients: ClientStore;
}

/**
 * Lays the base sequences out in consecutive ranges (invoices, clients, address-book groups); the
 * counter continues above them. Nothing per record is built here beyond typed arrays.
 */
export function createSimData(options: SimOptions): SimData {
  const { seed, variant } = options;
  const first = firstSequence(variant.largeSequences);
  const clientStart = first + options.invoices * sequenceStride;
  const groupStart = clientStart + options.clients * sequenceStride;
  const counter = createSequenceCounter(groupStart + options.clients * sequenceStride + sequenceStride);
  const clientIds = createIdFormat(variant.idStyle, 'cli');
  const common = {
    seed,
    counter,
    sequenceField: variant.sequenceField,
    jsonCacheSize: options.jsonCacheSize,
    now: options.now,
    firstSequence: first,
    shapes: createRecordShapes(variant),
  };
  const invoices = createInvoiceStore({
    ...common,
    count: options.invoices,
    ids: createIdFormat(variant.idStyle, 'inv'),
    clientIds,
    clientCount: options.clients,
    baseSequences: baseSequences(options.invoices, first, seed),
    today: dayOf(options.now()),
  });
  const clients = createClientStore({
    ...common,
    count: options.clients,
    ids: clientIds,
    baseSequences: baseSequences(options.clients, clientStart, seed),
    groupSequenceStart: groupStart,
  });
  return { counter, invoices, clients };
}
