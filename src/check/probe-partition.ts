import type {
  ChildStream,
  SnapshotStream,
  StreamDefinition,
  WindowStream,
} from '../../config/stream-definition.js';
import { type StreamName, streams } from '../../config/streams.js';
import type { JsonObject } from '../../schemas/json-object.js';
import { HttpStatusError, type TmsClient } from '../client/index.js';
import type { StopSignal } from '../linked-signals.js';
import { valuesAtPath } from '../store/values-at-path.js';
import { keyedRecords, keyReader, sequenceReader } from '../sync/record-keys.js';
import { deletedPartition } from '../sync/strategies/sequence-strategy.js';
import { SyncProtocolError } from '../sync/sync-errors.js';

/** What one partition's first request answered: its records (for the partitions reading them) and one line. */
export interface Probe {
  readonly records: JsonObject[];
  readonly detail: string;
}

export interface ProbeContext {
  readonly client: TmsClient;
  readonly sequenceField: string;
  readonly signal: StopSignal;
  /** The probe of a partition this one reads from (a parent's first page, the operator's tasks). */
  readonly probeOf: (stream: StreamName, partition: string) => Promise<Probe>;
}

/** Records asked of a listing's first page: enough to see the envelope, the keys and a parent to follow. */
const firstPageLimit = 10;

/**
 * The first request a run of the partition would make, made once: a listing's first page, a
 * child list of the first parent, a snapshot (or its first batch of ids), the last hour of a
 * window. Its records are keyed as a run keys them, so a record without a usable key fails here.
 */
export async function probePartition(
  ctx: ProbeContext,
  stream: StreamName,
  partition: string,
): Promise<Probe> {
  const definition: StreamDefinition = streams[stream];
  const records = await fetchFirst(ctx, stream, partition, definition);
  if (typeof records === 'string') return { records: [], detail: records };
  const origin = { stream, partition, where: 'the first page', requested: partition || 'current' };
  keyedRecords(definition, records, origin, sequenceReader(ctx.sequenceField));
  return { records, detail: `${records.length} record${records.length === 1 ? '' : 's'}` };
}

/** The records, or why there was nothing to ask for (a parent without records). */
function fetchFirst(ctx: ProbeContext, stream: StreamName, partition: string, definition: StreamDefinition) {
  switch (definition.strategy) {
    case 'sequence':
      return firstPage(ctx, definition, { status: partition === deletedPartition ? 'deleted' : undefined });
    case 'child':
      return firstChildren(ctx, stream, definition);
    case 'snapshot':
      return snapshot(ctx, definition, partition);
    case 'window':
      return lastHour(ctx, definition, partition);
  }
}

async function firstPage(
  ctx: ProbeContext,
  listing: { readonly path: string },
  query: { status?: string | undefined; id?: string },
): Promise<JsonObject[]> {
  const pages = ctx.client.pages(listing, { ...query, since: 1, limit: firstPageLimit, signal: ctx.signal });
  try {
    const first = await pages.next();
    return first.done ? [] : first.value.items;
  } finally {
    await pages.return(undefined);
  }
}

async function firstChildren(ctx: ProbeContext, stream: string, definition: ChildStream) {
  const parents = await ctx.probeOf(definition.parent as StreamName, '');
  const parentId = parents.records.map(keyReader(streams[definition.parent as StreamName].key)).find(Boolean);
  if (!parentId) return `nothing to read: the first page of ${definition.parent} is empty`;
  if (definition.source === 'listing') return firstPage(ctx, definition, { id: parentId });
  const detail = await ctx.client.restRecord(definition.path, { id: parentId }, { signal: ctx.signal });
  const items = detail[definition.itemsField ?? 'items'];
  if (!Array.isArray(items))
    throw new SyncProtocolError(stream, `the detail of ${parentId} has no array '${definition.itemsField}'`);
  return items as JsonObject[];
}

async function snapshot(ctx: ProbeContext, definition: SnapshotStream, partition: string) {
  const operatorId = definition.scope === 'operator' ? partition : undefined;
  const call = { operatorId, query: { ...definition.query }, signal: ctx.signal };
  const { idsFrom } = definition;
  if (!idsFrom) return read(ctx, definition, call);
  const source = await ctx.probeOf(
    idsFrom.stream as StreamName,
    definition.scope === 'operator' ? partition : '',
  );
  const ids = [...new Set(source.records.flatMap(valuesAtPath(idsFrom.path)))].slice(0, idsFrom.batch);
  if (ids.length === 0) return `nothing to ask for: no ids at ${idsFrom.path} in the first ${idsFrom.stream}`;
  if (idsFrom.param === 'ids')
    return read(ctx, definition, { ...call, query: { ...call.query, ids: ids.join(',') } });
  return read(ctx, definition, { ...call, pathParams: { id: ids[0]! } }).catch((error: unknown) => {
    // A referenced resource that does not exist (an order without a dossier folder) is simply absent.
    if (error instanceof HttpStatusError && error.status === 404) return [];
    throw error;
  });
}

async function read(
  ctx: ProbeContext,
  definition: SnapshotStream,
  call: Parameters<TmsClient['driverList']>[1],
): Promise<JsonObject[]> {
  return definition.single
    ? [await ctx.client.driverRecord(definition, call)]
    : ctx.client.driverList(definition, call);
}

function lastHour(ctx: ProbeContext, definition: WindowStream, partition: string): Promise<JsonObject[]> {
  const to = new Date();
  const from = new Date(to.getTime() - 3_600_000);
  const query = { [definition.fromParam]: from.toISOString(), [definition.toParam]: to.toISOString() };
  return ctx.client.driverList(definition, { operatorId: partition, query, signal: ctx.signal });
}
