import type { Selectable } from 'kysely';
import type { TmsCommandsTable } from '../database.js';
import type { SqlTypes } from '../store-dialect.js';
import { toStoredDate } from '../stored-values.js';
import type { Command } from './command.js';

export type CommandRow = Selectable<TmsCommandsTable>;

/** A row as the deliverer and the CLI see it, the same on both dialects. */
export function decodeCommand(row: CommandRow, types: SqlTypes): Command {
  const body = decodeBody(row.body, types);
  return {
    id: Number(row.id),
    kind: row.kind,
    target: row.target,
    body: body.value,
    bodyProblem: body.problem,
    match: row.match_fields ? splitFields(row.match_fields) : null,
    status: row.status,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    createdId: row.created_id,
    lane: row.lane,
    inDoubt: Number(row.in_doubt) === 1,
    seenBefore: decodeSeen(row.seen_before, types),
    owner: row.owner,
    leaseUntil: toStoredDate(row.lease_until),
    nextAttemptAt: toStoredDate(row.next_attempt_at),
    createdAt: toStoredDate(row.created_at)!,
    updatedAt: toStoredDate(row.updated_at)!,
  };
}

/** `reference, amount` -> ['reference', 'amount']. */
export function splitFields(text: string): string[] {
  return text
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '');
}

/** A body a user inserted by SQL may be text that is no JSON (SQLite): kept as a problem, not thrown. */
function decodeBody(value: unknown, types: SqlTypes): { value: unknown; problem: string | undefined } {
  try {
    return { value: types.decodeJson(value) ?? undefined, problem: undefined };
  } catch (error) {
    return { value: undefined, problem: `is not valid JSON (${(error as Error).message})` };
  }
}

function decodeSeen(value: unknown, types: SqlTypes): string[] | null {
  const decoded = types.decodeJson(value);
  return Array.isArray(decoded) ? decoded.map(String) : null;
}
