import type { ChildStream } from '../../../config/stream-definition.js';
import type { JsonObject } from '../../../schemas/json-object.js';
import { isJsonObject } from '../../../schemas/json-object.js';
import type { PageQuery } from '../../client/index.js';
import type { PartitionContext } from '../stream-strategy.js';
import { SyncProtocolError } from '../sync-errors.js';

/**
 * The current children of one parent: every page of a child listing, or the items field of the
 * parent's detail. `detail` is the resource they came from (for `source: 'detail'`), whose
 * sequence is theirs when they carry none.
 */
export interface FetchedChildren {
  readonly children: JsonObject[];
  readonly detail?: JsonObject;
}

export async function fetchChildren(
  job: PartitionContext<ChildStream>,
  parentId: string,
): Promise<FetchedChildren> {
  const { client, settings } = job;
  const { definition } = job;
  if (definition.source === 'detail') {
    const detail = await client.restRecord(definition.path, { id: parentId }, { signal: job.signal });
    const field = definition.itemsField ?? 'items';
    const items = detail[field];
    // Without the field nothing says the children are gone: refuse rather than mark them deleted.
    if (!Array.isArray(items))
      throw new SyncProtocolError(job.stream, `the detail of ${parentId} has no array '${field}'`);
    const notObject = items.findIndex((item) => !isJsonObject(item));
    if (notObject >= 0)
      throw new SyncProtocolError(
        job.stream,
        `item ${notObject + 1} of '${field}' in the detail of ${parentId} is not a record object`,
      );
    return { children: items as JsonObject[], detail };
  }
  const children: JsonObject[] = [];
  const query: PageQuery & { id: string } = {
    id: parentId,
    limit: settings.sync.pageLimit,
    signal: job.signal,
  };
  for await (const page of client.pages(definition, query)) children.push(...page.items);
  return { children };
}
