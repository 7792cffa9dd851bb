import type { JsonObject } from '../../schemas/json-object.js';
import { type ListingDefinition, listings, type TmsClient } from '../client/index.js';
import type { StopSignal } from '../linked-signals.js';
import type { Command } from '../store/outbox/command.js';
import type { CreateDefinition } from './command-kinds.js';
import { compareRecord } from './lenient-match.js';

/** What reading a create's listing back tells: its record (with the id), no record, or no way to tell. */
export type ReadBack =
  | { readonly found: true; readonly id: string | null }
  | { readonly found: false }
  | { readonly review: string };

/** The records of a create's listing that are, or may be, its own: every page, never just the first. */
async function candidates(
  client: TmsClient,
  command: Command,
  create: CreateDefinition,
  signal: StopSignal,
): Promise<{ exact: Array<string | null>; unknown: Array<string | null> }> {
  const fields = command.match ?? [];
  const seen = new Set(command.seenBefore ?? []);
  const out = { exact: [] as Array<string | null>, unknown: [] as Array<string | null> };
  const scope = create.scope ? { [create.scope]: command.target ?? '' } : {};
  const listing: ListingDefinition = listings[create.listing];
  const pages = client.pages(listing, { limit: 1000, signal, ...scope });
  for await (const page of pages) {
    for (const record of page.items) {
      const id = idOf(record);
      if (id !== null && seen.has(id)) continue;
      const comparison = compareRecord(command.body, record, fields);
      if (comparison === 'same') out.exact.push(id);
      else if (comparison === 'unknown') out.unknown.push(id);
    }
  }
  return out;
}

/**
 * After an attempt whose outcome is unknown, looks for the create's own record by its match key,
 * leaving out the records that matched before its first send. One exact match: found. More than
 * one, or records that lack the match fields: a person must decide. None: it was not applied.
 */
export async function readBack(
  client: TmsClient,
  command: Command,
  create: CreateDefinition,
  signal: StopSignal,
): Promise<ReadBack> {
  if (!command.match)
    return {
      review:
        'the create may have been applied and it names no match key to look for it (give one with --match or match_fields)',
    };
  const { exact, unknown } = await candidates(client, command, create, signal);
  const key = command.match.join(', ');
  if (exact.length === 1) return { found: true, id: exact[0]! };
  if (exact.length > 1)
    return {
      review: `${exact.length} records match ${key} (${exact.join(', ')}); which one is this command's cannot be told`,
    };
  if (unknown.length > 0)
    return {
      review: `the TMS lists ${unknown.length} record(s) without comparable ${key} (${unknown.join(', ')}); one may be this command's`,
    };
  return { found: false };
}

/** The ids of the records that already match a create before its first send (never taken for its own later). */
export async function matchingBefore(
  client: TmsClient,
  command: Command,
  create: CreateDefinition,
  signal: StopSignal,
): Promise<string[]> {
  const { exact, unknown } = await candidates(client, { ...command, seenBefore: [] }, create, signal);
  return [...exact, ...unknown].filter((id): id is string => id !== null);
}

/** A record's id as text: docs/api.md guarantees `id` (docs/api.md, Records), a number or a string. */
export function idOf(record: JsonObject | undefined): string | null {
  const id = record?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
