import type { SnapshotStream } from '../../../config/stream-definition.js';
import { HttpStatusError, type RecordBatch } from '../../client/index.js';
import type { PartitionJob } from '../partition-job.js';
import { valuesAtPath } from '../record-keys.js';

type Job = PartitionJob<SnapshotStream>;

/**
 * The whole current list of one snapshot scope: one call, or, for listings that need `ids`, the ids
 * found in the synced rows of another stream (e.g. the goods of the operator's tasks), in batches.
 */
export async function fetchSnapshot(job: Job): Promise<RecordBatch<unknown>> {
  const { idsFrom } = job.definition;
  if (!idsFrom) return fetchOne(job, {});
  const batch: RecordBatch<unknown> = { items: [], rejected: [] };
  for (const ids of chunks(await referencedIds(job), idsFrom.batch)) {
    const part =
      idsFrom.param === 'path'
        ? await fetchOne(job, {}, { id: ids[0]! })
        : await fetchOne(job, { ids: ids.join(',') });
    batch.items.push(...part.items);
    batch.rejected.push(...part.rejected);
  }
  return batch;
}

async function fetchOne(
  job: Job,
  query: Record<string, string>,
  pathParams?: Record<string, string>,
): Promise<RecordBatch<unknown>> {
  const { client } = job.ctx;
  const call = {
    operatorId: job.definition.scope === 'operator' ? job.partition : undefined,
    query: { ...job.definition.query, ...query },
    pathParams,
    signal: job.signal,
  };
  try {
    return job.definition.single
      ? await client.driverSingle(job.definition, call)
      : await client.driverList(job.definition, call);
  } catch (error) {
    // A referenced resource that does not exist (an order without a dossier folder) is simply absent.
    if (pathParams && error instanceof HttpStatusError && error.status === 404)
      return { items: [], rejected: [] };
    throw error;
  }
}

async function referencedIds(job: Job): Promise<string[]> {
  const { idsFrom } = job.definition;
  if (!idsFrom) return [];
  const read = valuesAtPath(idsFrom.path);
  const ids = new Set<string>();
  const scope = job.definition.scope === 'operator' ? job.partition : undefined;
  for await (const rows of job.ctx.store.liveRecords(idsFrom.stream, { scope })) {
    for (const row of rows) for (const id of read(row.data)) ids.add(id);
  }
  return [...ids].sort();
}

function* chunks<T>(values: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < values.length; start += size) yield values.slice(start, start + size);
}
