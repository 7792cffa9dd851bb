import type { StreamDefinition } from '../../config/stream-definition.js';
import type {
  MarkDeletedByScopeInput,
  MarkMissingInput,
  PageResult,
  ReplaceScopesInput,
  StateTransition,
  SyncState,
  WritePageInput,
} from '../store/store.js';
import type { EngineContext } from './engine-context.js';
import type { RunOptions, RunTally } from './run-options.js';

type PageWrite = Omit<WritePageInput, 'stream' | 'now' | 'runId' | 'state'> & {
  readonly state?: Omit<StateTransition, 'stream' | 'partition'>;
};

/**
 * One run of one stream partition, as a strategy sees it. Every write goes through here, so a dry
 * run, the tally and progress reports are handled in one place and never by a strategy.
 */
export interface PartitionJob<D extends StreamDefinition = StreamDefinition> {
  readonly stream: string;
  readonly definition: D;
  readonly partition: string;
  readonly ctx: EngineContext;
  readonly options: RunOptions;
  readonly runId: number | null;
  readonly tally: RunTally;
  readonly signal: AbortSignal | undefined;
  readState(): Promise<SyncState>;
  /**
   * Upserts a page (with its state transition) in one transaction, or previews it in a dry run;
   * with `after`, the transaction waits for that write (see page-pipeline.ts).
   */
  writePage(page: PageWrite, after?: Promise<unknown>): Promise<PageResult>;
  markMissing(input: Omit<MarkMissingInput, 'stream' | 'now' | 'dryRun' | 'maxDeleteShare'>): Promise<void>;
  markDeletedByScope(input: Omit<MarkDeletedByScopeInput, 'stream' | 'now'>): Promise<void>;
  /** Replaces many scopes' rows in one transaction (children of a batch of parents). */
  replaceScopes(scopes: ReplaceScopesInput['scopes']): Promise<void>;
}

export function createPartitionJob<D extends StreamDefinition>(
  base: Pick<PartitionJob<D>, 'stream' | 'definition' | 'partition' | 'ctx' | 'options' | 'runId' | 'tally'>,
  report: () => void,
): PartitionJob<D> {
  const { stream, partition, ctx, options, tally } = base;
  const dryRun = options.dryRun ?? false;
  const transition = (state: PageWrite['state']): StateTransition | undefined =>
    state && { ...state, stream, partition };
  return {
    ...base,
    signal: options.signal,
    readState: () => ctx.store.readState(stream, partition),
    async writePage(page, after) {
      options.signal?.throwIfAborted();
      // An abort while the page waits for the one before keeps its transaction from beginning.
      const gate = after?.then(() => options.signal?.throwIfAborted());
      gate?.catch(() => undefined);
      const input: WritePageInput = {
        ...page,
        stream,
        now: ctx.now(),
        runId: base.runId,
        state: dryRun ? undefined : transition(page.state),
        ...(gate ? { after: gate } : {}),
      };
      const result = dryRun ? await ctx.store.previewPage(input) : await ctx.store.writePage(input);
      tally.pages += 1;
      tally.records += page.records.length + (page.rejected?.length ?? 0);
      tally.inserted += result.inserted;
      tally.updated += result.updated;
      tally.unchanged += result.unchanged + result.staleSkipped;
      tally.rejected += result.rejected;
      if (page.state?.watermark != null) tally.watermark = page.state.watermark;
      report();
      return result;
    },
    async markMissing(input) {
      options.signal?.throwIfAborted();
      const result = await ctx.store.markMissing({
        ...input,
        stream,
        now: ctx.now(),
        dryRun,
        maxDeleteShare: ctx.settings.sync.maxDeleteShare,
      });
      tally.deleted += result.deleted;
      report();
    },
    async replaceScopes(scopes) {
      options.signal?.throwIfAborted();
      const result = await ctx.store.replaceScopes({
        stream,
        scopes,
        now: ctx.now(),
        runId: base.runId,
        dryRun,
        maxDeleteShare: ctx.settings.sync.maxDeleteShare,
      });
      tally.pages += scopes.length;
      for (const scope of scopes) tally.records += scope.records.length + (scope.rejected?.length ?? 0);
      tally.inserted += result.inserted;
      tally.updated += result.updated;
      tally.unchanged += result.unchanged + result.staleSkipped;
      tally.rejected += result.rejected;
      tally.deleted += result.deleted;
      report();
    },
    async markDeletedByScope(input) {
      if (dryRun) return;
      const result = await ctx.store.markDeletedByScope({ ...input, stream, now: ctx.now() });
      tally.deleted += result.deleted;
      report();
    },
  };
}
