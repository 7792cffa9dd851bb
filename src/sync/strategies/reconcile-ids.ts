import type { SequenceStream } from '../../../config/stream-definition.js';
import type { PartitionJob } from '../partition-job.js';
import { keyReader } from '../record-keys.js';
import { childStreamsOf } from '../stream-order.js';

/**
 * Hard deletes are never returned by `since` (spec 8.6): a full scan of the default listing collects
 * every id that exists, and the live rows not among them are marked `reconcile_missing`. The
 * watermark is not touched; a scan that would delete an implausible share stops (MassDeleteError).
 */
export async function reconcileIds(job: PartitionJob<SequenceStream>): Promise<void> {
  const keyOf = keyReader(job.definition);
  const seen = new Set<string>();
  const pages = job.ctx.client.pages(job.definition, {
    limit: job.ctx.settings.sync.pageLimit,
    signal: job.signal,
  });
  for await (const page of pages) {
    for (const record of page.items) addKey(seen, keyOf(record));
    // A record that failed validation still exists upstream: it must not be marked missing.
    for (const { record } of page.rejected) addKey(seen, keyOf(record));
  }
  await job.markMissing({
    seenIds: seen,
    reason: 'reconcile_missing',
    enqueueChildren: childStreamsOf(job.stream),
  });
}

function addKey(seen: Set<string>, key: string | null): void {
  if (key !== null) seen.add(key);
}
