import type { SequenceStream } from '../../../config/stream-definition.js';
import { keyedRecords } from '../record-keys.js';
import type { PartitionContext } from '../stream-strategy.js';

const noSequence = () => null;

/**
 * Hard deletes are never returned by `since`: a full scan of the default listing collects every id
 * that exists, and the live rows not among them are marked `reconcile_missing` (their children
 * follow). The watermark is not touched; a scan that would delete an implausible share is held
 * back (delete-guard.ts).
 */
export async function reconcileIds(partition: PartitionContext<SequenceStream>): Promise<void> {
  const { client, definition, settings, stream } = partition;
  const seen = new Set<string>();
  const pages = client.pages(definition, { limit: settings.sync.pageLimit, signal: partition.signal });
  for await (const page of pages) {
    const origin = { stream, partition: partition.partition, where: `reconcile page ${page.pageNumber}` };
    for (const { key } of keyedRecords(definition, page.items, origin, noSequence)) seen.add(key);
  }
  await partition.run.markMissing({ seenIds: seen, reason: 'reconcile_missing' });
}
