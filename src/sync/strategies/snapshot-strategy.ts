import type { SnapshotStream } from '../../../config/stream-definition.js';
import { passDigest } from '../../store/pass-digest.js';
import { type PassIds, passIdsOf } from '../../store/pass-references.js';
import type { StoreRecord } from '../../store/store.js';
import { idsReadersOf } from '../stream-order.js';
import type { PartitionContext, StreamStrategy } from '../stream-strategy.js';
import { LeftBehindError, SyncConfigurationError } from '../sync-errors.js';
import { fetchSnapshot, storeHeld } from './fetch-snapshot.js';

const leftBatches = {
  one: 'request',
  many: 'requests',
  outcome: 'everything else was stored, and no row was marked deleted on the incomplete list',
};

/**
 * The full list replaces the scope: its parts are upserted as they arrive (unchanged rows are not
 * rewritten), gathered into pages of up to `sync.pageLimit` records, so a list fetched one
 * referenced resource at a time (a dossier folder per order) costs a commit per page, not per
 * request. Only after a complete pass are the rows no longer listed marked `snapshot_missing`,
 * unless the delete guard finds that implausible and holds them back (delete-guard.ts). A pass
 * with parts that kept failing marks nothing and fails the run.
 *
 * The Driver API lists have no `since`, so most passes of a steady day repeat the last one, and
 * such a pass writes nothing. Its answers are held unread while they may still equal the last
 * pass's to the byte (`answerDigest`); if they do, and the scope has as many live rows as that
 * pass had records, nothing is parsed either. Otherwise a pass of one page is compared whole with
 * the last one (`passDigest`), over a scope whose live rows are exactly its ids.
 */
export const snapshotStrategy: StreamStrategy<SnapshotStream> = {
  // Every pass is complete and marks what is gone: nothing more to find.
  reconciles: () => false,
  partitions: (definition, ctx) => (definition.scope === 'operator' ? operatorsOf(ctx) : ['']),
  async run(partition) {
    const { run } = partition;
    const scope = partition.definition.scope === 'operator' ? partition.partition : undefined;
    const last = snapshotState(run.state().strategyState);
    const seenIds: string[] = [];
    const lastPassAt = partition.now().toISOString();
    const pageLimit = partition.settings.sync.pageLimit;
    let gathered: StoreRecord[] = [];
    let pages = 0;
    const commit = (digests?: PassDigests) => {
      const records = gathered;
      gathered = [];
      pages += 1;
      const strategyState: SnapshotState = { lastPassAt, ...digests };
      return run.commitPage({ records, state: { strategyState }, ...(scope === undefined ? {} : { scope }) });
    };
    const gather = async (records: StoreRecord[]) => {
      for (const record of records) {
        seenIds.push(record.key);
        gathered.push(record);
      }
      if (gathered.length >= pageLimit) await commit();
    };
    const fetched = await fetchSnapshot(partition, gather, mayHold(partition, last) ? heldAnswerBytes : 0);
    const { answerDigest } = fetched;
    if (fetched.wholeHeld && answerDigest === last.answerDigest) {
      const pass = { records: last.answerRecords ?? 0, scope, references: last.references };
      if (await run.keepUnchangedAnswers(pass)) return;
    }
    const left = await storeHeld(partition, fetched, gather);
    // A pass of one page is compared whole with the last one; a `--full` run writes it regardless.
    const onePage = pages === 0 && left.count === 0;
    const references = onePage && answerDigest ? run.referencesOf(gathered) : undefined;
    const digests: PassDigests | undefined = onePage
      ? {
          passDigest: passDigest(scope, gathered),
          ...(answerDigest ? { answerDigest, answerRecords: gathered.length } : {}),
          ...(references ? { references } : {}),
        }
      : undefined;
    if (!partition.full && digests && digests.passDigest === last.passDigest) {
      const pass = { records: gathered, ...(scope === undefined ? {} : { scope }) };
      // The answers differ from the state's in bytes only (a state from before answers were
      // compared or from an older form of their digest, a TMS that changed its spacing or key
      // order): the state learns their digest, and the ids other streams fetch by, so that the
      // next pass like this one is kept unread. A TMS whose bytes differ every time pays a state
      // write a pass for it (never the rows).
      const learns =
        answerDigest !== last.answerDigest || (digests.references !== undefined && !last.references);
      const learn = answerDigest && learns ? { ...last, ...digests } : undefined;
      if (await run.keepUnchangedPass(pass, learn)) return;
    }
    // An empty list (no ids referenced) still records the pass.
    if (gathered.length > 0 || pages === 0) await commit(digests);
    await run.flush();
    if (left.count > 0) throw new LeftBehindError(partition.stream, left.count, leftBatches, left.first);
    // The pass's rows it inserted are this scope's new ones, on its balance.
    await run.markMissing({
      seenIds,
      reason: 'snapshot_missing',
      listedNew: run.counts.inserted,
      ...(scope === undefined ? {} : { scope }),
    });
  },
};

/**
 * Answers held unread at most, in bytes, per pass: past it they are read as they come. A pass
 * that fits one page (`sync.pageLimit` records) is far smaller.
 */
const heldAnswerBytes = 8 * 1024 * 1024;

/**
 * Whether the pass's answers may be held unread: not for a `--full` run (it writes the pass), not
 * before a pass recorded its answers, and for a stream other streams fetch by the ids of (the
 * tasks) only when that pass kept those ids too (pass-references.ts): otherwise its records give them.
 */
function mayHold(partition: PartitionContext<SnapshotStream>, last: SnapshotState): boolean {
  if (partition.full || last.answerDigest === undefined) return false;
  return last.references !== undefined || idsReadersOf(partition.stream).length === 0;
}

/** What a pass of one page is recognized by when it comes again. */
interface PassDigests {
  /** Its records, parsed (pass-digest.ts). */
  readonly passDigest: string;
  /** Its answers as received (answer-digest.ts), and how many records they held. */
  readonly answerDigest?: string;
  readonly answerRecords?: number;
  /** With its answers, the ids other streams fetch by at each path (pass-references.ts). */
  readonly references?: PassIds;
}

/**
 * What a snapshot partition keeps between passes: when the last one ran, and, for a pass of one
 * page, its digests, so an identical pass writes nothing.
 */
interface SnapshotState extends Partial<PassDigests> {
  readonly lastPassAt: string;
}

function snapshotState(state: unknown): SnapshotState {
  const fields = (state ?? {}) as Partial<Record<keyof SnapshotState, unknown>>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const passDigest = text(fields.passDigest);
  const answerDigest = text(fields.answerDigest);
  const answerRecords = Number.isSafeInteger(fields.answerRecords)
    ? (fields.answerRecords as number)
    : undefined;
  const answers = answerDigest !== undefined && answerRecords !== undefined;
  const references = answers ? passIdsOf(fields.references) : undefined;
  return {
    lastPassAt: text(fields.lastPassAt) ?? '',
    ...(passDigest ? { passDigest } : {}),
    ...(answers ? { answerDigest, answerRecords } : {}),
    ...(references ? { references } : {}),
  };
}

/** The configured operators; a per-operator stream without any is a configuration error. */
export function operatorsOf(ctx: { readonly settings: { readonly operators: readonly string[] } }): string[] {
  if (ctx.settings.operators.length === 0) {
    throw new SyncConfigurationError(
      'TMS_OPERATORS',
      'no operators configured: set TMS_OPERATORS to sync the per-operator (Driver API) streams',
    );
  }
  return [...ctx.settings.operators];
}
