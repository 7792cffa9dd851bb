import type { ProcessedMutation } from '../records/index.js';
import { SimHttpError } from '../sim-http-error.js';
import type { DriverData } from './driver-data.js';

/** What `runMutation` needs to know about one write. */
export interface MutationRun {
  readonly data: DriverData;
  readonly mutationId: string | undefined;
  readonly operation: string;
  readonly now: string;
  /**
   * `skip`: a mutation already applied is not applied again (an app's offline queue replaying it
   * must not duplicate). `apply`: applied again, for writes whose replay is harmless and whose answer
   * must carry a result (dossier uploads replace the file of the same name). @default 'skip'
   */
  readonly replays?: 'skip' | 'apply';
}

const record = (run: MutationRun, result: ProcessedMutation['result']) => {
  if (run.mutationId === undefined) return;
  const { mutationId, operation, now } = run;
  run.data.processedMutations.set(mutationId, { mutationId, operation, processedAt: now, result });
};

/**
 * Runs a write under its optional `mutationId` and records it as processed. A write refused for the
 * state it met (404, 409, 422 on a reference) is recorded as `rejected`; it may be sent again.
 * Answers undefined for a skipped replay.
 */
export function runMutation<T>(run: MutationRun, apply: () => T): T | undefined {
  const previous = run.mutationId === undefined ? undefined : run.data.processedMutations.get(run.mutationId);
  if (previous?.result === 'applied' && (run.replays ?? 'skip') === 'skip') return undefined;
  try {
    const result = apply();
    record(run, 'applied');
    return result;
  } catch (error) {
    if (error instanceof SimHttpError) record(run, 'rejected');
    throw error;
  }
}

/** The processed mutations among `ids`, in the order asked; ids never processed are absent. */
export const processedMutations = (data: DriverData, ids: readonly string[]): ProcessedMutation[] =>
  [...new Set(ids)].flatMap((id) => data.processedMutations.get(id) ?? []);
