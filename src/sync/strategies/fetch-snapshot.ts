import pMap from 'p-map';
import type { SnapshotStream } from '../../../config/stream-definition.js';
import type { JsonObject } from '../../../schemas/json-object.js';
import { HttpStatusError, type ReceivedAnswer } from '../../client/index.js';
import { forLibrary } from '../../linked-signals.js';
import type { StoreRecord } from '../../store/store.js';
import { describeError, errorSays } from '../../tms-sync-error.js';
import { keyedRecords, sequenceReader } from '../record-keys.js';
import type { PartitionContext } from '../stream-strategy.js';
import { AnswerDigest } from './answer-digest.js';

type Job = PartitionContext<SnapshotStream>;

/** One request of a snapshot: the whole list, a batch of ids, or one referenced resource. */
interface SnapshotPart {
  /** How errors name it: `the snapshot`, `ids 17..42`, `the answer for 42`. */
  readonly what: string;
  readonly query: Record<string, string>;
  readonly pathParams?: Record<string, string>;
  /** The key of a single record: what was asked for. */
  readonly requested?: string;
  /** Its place among the pass's parts (answer-digest.ts). */
  readonly index: number;
}

/** The parts whose requests kept failing, with the first error. */
export interface PartsLeft {
  readonly count: number;
  readonly first: { readonly what: string; readonly error: string } | undefined;
}

/** How a pass was fetched: the parts left, and a fingerprint of its answers when none was. */
export interface FetchedSnapshot {
  readonly left: PartsLeft;
  /**
   * Every part's answer as received, in the parts' order (answer-digest.ts): equal for two passes
   * whose answers are equal to the byte. Undefined when a part was left.
   */
  readonly answerDigest: string | undefined;
  /** The answers held unread (`holdBytes`), to be read with `storeHeld`, or dropped when the pass is kept. */
  readonly held: readonly HeldAnswer[];
  /** Every answer was held: none was read, nothing stored. */
  readonly wholeHeld: boolean;
  /** The pass is one request: its failure is the run's, not a part left. */
  readonly alone: boolean;
}

/** An answer not read yet: its records are parsed and checked when the pass needs them. */
export interface HeldAnswer {
  readonly part: SnapshotPart;
  readonly answer: ReceivedAnswer | undefined;
}

/**
 * Fetches the whole current list of one snapshot scope, keyed, handing each part to `store` as it
 * arrives: one call, or, for listings that need `ids`, the ids found in the synced rows of another
 * stream (e.g. the goods of the operator's tasks) in batches fetched at once (up to
 * TMS_MAX_CONCURRENCY). A part whose request keeps failing is tried once more after the others;
 * the parts still failing are returned (the list is then incomplete).
 *
 * With `holdBytes`, answers are held unread up to that many bytes in all (past it, the held ones
 * and every later one are read and stored as they come): a pass equal to the byte to the last one
 * is then never parsed.
 */
export async function fetchSnapshot(
  job: Job,
  store: (records: StoreRecord[]) => Promise<void>,
  holdBytes = 0,
): Promise<FetchedSnapshot> {
  let parts = await snapshotParts(job);
  const digest = new AnswerDigest(parts.length);
  let held: HeldAnswer[] = [];
  let heldBytes = 0;
  let holding = holdBytes > 0;
  let left: LeftPart[] = [];
  const alone = parts.length === 1;
  const take = async (answer: HeldAnswer) => {
    const records = readPart(job, answer, left, alone);
    if (records) await store(records);
  };
  const fetchOne = async (part: SnapshotPart) => {
    let answer: ReceivedAnswer | undefined;
    try {
      answer = await fetchPart(job, part);
    } catch (error) {
      if (!errorSays(error, 'concernsOneRequest') || parts.length === 1) throw error;
      left.push({ what: part.what, error: describeError(error), part });
      return;
    }
    digest.add(part.index, asked(part), answer?.bytes);
    if (holding) {
      held.push({ part, answer });
      heldBytes += answer?.bytes.length ?? 0;
      if (heldBytes <= holdBytes) return;
      // Past the bound: read what was held and stop holding.
      holding = false;
      const taken = held;
      held = [];
      for (const one of taken) await take(one);
      return;
    }
    await take({ part, answer });
  };
  for (const pass of ['first', 'again'] as const) {
    left = [];
    // Most passes are one request (an operator's list): p-map's machinery cost more than it.
    if (parts.length === 1) await fetchOne(parts[0]!);
    else
      await pMap(parts, fetchOne, {
        concurrency: job.settings.tms.maxConcurrency,
        signal: forLibrary(job.signal),
      });
    if (left.length === 0 || pass === 'again') break;
    parts = Object.freeze(left.map((entry) => entry.part));
  }
  const first = left[0];
  return {
    left: { count: left.length, first: first && { what: first.what, error: first.error } },
    answerDigest: left.length === 0 ? digest.value() : undefined,
    held,
    wholeHeld: holding,
    alone,
  };
}

/**
 * Reads the answers `fetchSnapshot` held and stores their records. An answer that fails its checks
 * is a part left, as it would have been had it been read on arrival (it is not fetched again).
 */
export async function storeHeld(
  job: Job,
  fetched: FetchedSnapshot,
  store: (records: StoreRecord[]) => Promise<void>,
): Promise<PartsLeft> {
  const left: LeftPart[] = [];
  for (const answer of fetched.held) {
    const records = readPart(job, answer, left, fetched.alone);
    if (records) await store(records);
  }
  const first = fetched.left.first ?? left[0];
  return {
    count: fetched.left.count + left.length,
    first: first && { what: first.what, error: first.error },
  };
}

interface LeftPart {
  readonly what: string;
  readonly error: string;
  readonly part: SnapshotPart;
}

/**
 * The answer's records, keyed; undefined when they fail a check that concerns this answer alone
 * and the pass has other parts (one part's failure is the run's).
 */
function readPart(
  job: Job,
  { part, answer }: HeldAnswer,
  left: LeftPart[],
  alone: boolean,
): StoreRecord[] | undefined {
  try {
    return answer ? keyed(job, part, answer.records()) : [];
  } catch (error) {
    if (!errorSays(error, 'concernsOneRequest') || alone) throw error;
    left.push({ what: part.what, error: describeError(error), part });
    return undefined;
  }
}

async function snapshotParts(job: Job): Promise<readonly SnapshotPart[]> {
  const { idsFrom } = job.definition;
  if (!idsFrom) return Object.freeze([snapshotPart('the snapshot', {}, 0)]);
  const ids = await referencedIds(job);
  if (idsFrom.param === 'path')
    return Object.freeze(ids.map((id, index) => snapshotPart(`the answer for ${id}`, {}, index, id)));
  return Object.freeze(
    [...chunks(ids, idsFrom.batch)].map((batch, index) =>
      snapshotPart(`ids ${batch[0]}..${batch.at(-1)}`, { ids: batch.join(',') }, index),
    ),
  );
}

/**
 * A part with every field, in one order, and its list frozen (empty or not): one hidden class for
 * every kind of part. Measured, this moved no cycle's time (docs/performance-history.md,
 * "2026-12-04 (first cycle against third)"); it is kept as the one way parts are made.
 */
function snapshotPart(what: string, query: Record<string, string>, index: number, id?: string): SnapshotPart {
  return { what, query, pathParams: id === undefined ? undefined : { id }, requested: id, index };
}

/** What a part asks for beyond the partition: its ids, in the path or the query. */
function asked(part: SnapshotPart): string {
  return JSON.stringify([part.pathParams ?? null, part.query]);
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

/** The part's answer as received; undefined for a referenced resource that does not exist. */
async function fetchPart(job: Job, part: SnapshotPart): Promise<ReceivedAnswer | undefined> {
  const call = {
    operatorId: job.definition.scope === 'operator' ? job.partition : undefined,
    query: { ...job.definition.query, ...part.query },
    pathParams: part.pathParams,
    signal: job.signal,
  };
  try {
    return await job.client.driverAnswer(job.definition, call, job.definition.single === true);
  } catch (error) {
    // A referenced resource that does not exist (an order without a dossier folder) is simply absent.
    if (part.pathParams && error instanceof HttpStatusError && error.status === 404) return undefined;
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
