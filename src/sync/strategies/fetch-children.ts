import { Type } from '@sinclair/typebox';
import type { ChildStream } from '../../../config/stream-definition.js';
import { recordSchemas } from '../../../schemas/index.js';
import { type PageQuery, type RecordBatch, splitRecords } from '../../client/index.js';
import type { PartitionJob } from '../partition-job.js';
import { SyncProtocolError } from '../sync-errors.js';

const anyRecord = Type.Record(Type.String(), Type.Unknown());

/** The current children of one parent: every page of a child listing, or the items field of the parent's detail. */
export async function fetchChildren(
  job: PartitionJob<ChildStream>,
  parentId: string,
): Promise<RecordBatch<unknown>> {
  const { client, settings } = job.ctx;
  const { definition } = job;
  if (definition.source === 'detail') {
    const detail = await client.restRecord(
      anyRecord,
      definition.path,
      { id: parentId },
      { signal: job.signal },
    );
    const field = definition.itemsField ?? 'items';
    const items = detail[field];
    // Without the field nothing says the children are gone: refuse rather than mark them deleted.
    if (!Array.isArray(items))
      throw new SyncProtocolError(job.stream, `the detail of ${parentId} has no array '${field}'`);
    return splitRecords(recordSchemas[definition.record], items);
  }
  const batch: RecordBatch<unknown> = { items: [], rejected: [] };
  const query: PageQuery & { id: string } = {
    id: parentId,
    limit: settings.sync.pageLimit,
    signal: job.signal,
  };
  const pages = client.pages(definition, query);
  for await (const page of pages) {
    batch.items.push(...page.items);
    batch.rejected.push(...page.rejected);
  }
  return batch;
}
