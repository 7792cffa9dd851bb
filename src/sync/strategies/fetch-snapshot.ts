import pMap from 'p-map';
import type { SnapshotStream } from '../../../config/stream-definition.js';
import type { JsonObject } from '../../../schemas/json-object.js';
import { HttpStatusError } from '../../client/index.js';
import type { StoreRecord } from '../../store/store.js';
import { describeError, errorSays } from '../../tms-sync-error.js';
import { keyedRecords, sequenceReader } from '../record-keys.js';
import type { PartitionContext } from '../stream-strategy.js';

type Job = PartitionContext<SnapshotStream>;

/** One request of a snapshot: the whole list, a batch of ids, or one referenced resource. */
interface SnapshotPart {
  /** How errors name it: `the snapshot`, `ids 17..42`, `the answer for 42`. */
  readonly what: string;
  readonly query: Record<string, string>;
  readonly pathParams?: Record<string, string>;
  /** The key of a single record: what was asked for. */
  readonly requested?: string;
}

/** The parts whose requests kept failing, with the first error. */
export interface PartsLeft {
  readonly count: number;
  readonly first: { readonly what: string; readonly error: string } | undefined;
}

/**
 * Fetches the whole current list of one snapshot scope, keyed, handing each part to `store` as it
 * arrives: one call, or, for listings that need `ids`, the ids found in the synced rows of another
 * stream (e.g. the goods of the operator's tasks) in batches fetched at once (up to
 * TMS_MAX_CONCURRENCY). A part whose request keeps failing is tried once more after the others;
 * the parts still failing are returned (the list is then incomplete).
 */
export async function fetchSnapshot(
  job: Job,
  store: (records: StoreRecord[]) => Promise<void>,
): Promise<PartsLeft> {
  let parts = await snapshotParts(job);
  let left: Array<{ what: string; error: string; part: SnapshotPart }> = [];
  for (const pass of ['first', 'again'] as const) {
    left = [];
    await pMap(
      parts,
      async (part) => {
        let records: StoreRecord[];
        try {
          const fetched = await fetchPart(job, part);
          records = keyed(job, part, fetched);
        } catch (error) {
          if (!errorSays(error, 'concernsOneRequest') || parts.length === 1) throw error;
          left.push({ what: part.what, error: describeError(error), part });
          return;
        }
        await store(records);
      },
      { concurrency: job.settings.tms.maxConcurrency, signal: job.signal },
    );
    if (left.length === 0 || pass === 'again') break;
    parts = left.map((entry) => entry.part);
  }
  const first = left[0];
  return { count: left.length, first: first && { what: first.what, error: first.error } };
}

async function snapshotParts(job: Job): Promise<SnapshotPart[]> {
  const { idsFrom } = job.definition;
  if (!idsFrom) return [{ what: 'the snapshot', query: {} }];
  const ids = await referencedIds(job);
  if (idsFrom.param === 'path')
    return ids.map((id) => ({ what: `the answer for ${id}`, query: {}, pathParams: { id }, requested: id }));
  return [...chunks(ids, idsFrom.batch)].map((batch) => ({
    what: `ids ${batch[0]}..${batch.at(-1)}`,
    query: { ids: batch.join(',') },
  }));
}

function keyed(job: Job, part: SnapshotPart, items: JsonObject[]): StoreRecord[] {
  const sequenceOf = sequenceReader(job.settings.sequenceField);
  const requested = part.requested ?? (job.definition.single ? job.partition || 'current' : undefined);
  const origin = {
    stream: job.stream,
    partition: job.partition,
    where: part.what,
    ...(requested ? { requested } : {}),
  };
  return keyedRecords(job.definition, items, origin, sequenceOf);
}

async function fetchPart(job: Job, part: SnapshotPart): Promise<JsonObject[]> {
  const { client } = job;
  const call = {
    operatorId: job.definition.scope === 'operator' ? job.partition : undefined,
    query: { ...job.definition.query, ...part.query },
    pathParams: part.pathParams,
    signal: job.signal,
  };
  try {
    return job.definition.single
      ? [await client.driverRecord(job.definition, call)]
      : await client.driverList(job.definition, call);
  } catch (error) {
    // A referenced resource that does not exist (an order without a dossier folder) is simply absent.
    if (part.pathParams && error instanceof HttpStatusError && error.status === 404) return [];
    throw error;
  }
}

async function referencedIds(job: Job): Promise<string[]> {
  const { idsFrom } = job.definition;
  if (!idsFrom) return [];
  const scope = job.definition.scope === 'operator' ? job.partition : undefined;
  return job.run.referencedIds(idsFrom.stream, idsFrom.path, scope);
}

function* chunks<T>(values: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < values.length; start += size) yield values.slice(start, start + size);
}
