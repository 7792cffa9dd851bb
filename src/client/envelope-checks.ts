import { Type } from '@sinclair/typebox';
import { DriverEnvelope, PageMeta } from '../../schemas/index.js';
import { type RequestTarget, ResponseValidationError } from './client-errors.js';
import { assertValid } from './response-checks.js';

const DriverListMeta = DriverEnvelope(Type.Unknown());
const DataEnvelope = Type.Object({ data: Type.Unknown() });

/** The `data` of a paginated listing page, checked strictly (docs/api.md, Envelopes): a malformed page fails whole. */
export function pageData(body: unknown, target: RequestTarget): PageMeta['data'] {
  return assertValid(PageMeta, body, 'the page envelope', target).data;
}

/** The items of a Driver API list (docs/api.md, Envelopes), after checking `code` is 200 and `itemCount` matches. */
export function driverListItems(body: unknown, target: RequestTarget): unknown[] {
  const { data } = assertValid(DriverListMeta, body, 'the Driver API list envelope', target);
  if (data.code !== 200) invalid(`the Driver API list envelope has code ${data.code}, not 200`, target);
  if (data.itemCount !== data.items.length) {
    invalid(
      `the Driver API list envelope counts ${data.itemCount} items but holds ${data.items.length}`,
      target,
    );
  }
  return data.items;
}

/**
 * The record of a single-resource answer. Both `{"data": record}` and `{"data": {"items": [record]}}`
 * occur (docs/records.md), the latter also with the Driver API's `code` and `itemCount`.
 */
export function singleRecord(body: unknown, target: RequestTarget): unknown {
  const { data } = assertValid(DataEnvelope, body, 'the response envelope', target);
  if (typeof data !== 'object' || data === null || !Array.isArray((data as { items?: unknown }).items))
    return data;
  const items = (data as { items: unknown[] }).items;
  if (items.length !== 1) invalid(`a single-resource answer holds ${items.length} items, not 1`, target);
  if ('code' in data) driverListItems(body, target);
  return items[0];
}

function invalid(message: string, target: RequestTarget): never {
  throw new ResponseValidationError(message, { target });
}
