import type { ColumnType } from '../../../config/stream-definition.js';
import { zonedDateTime } from './column-values.js';

/** What a scalar value looks like, for choosing a new column's type. */
export type ValueKind = 'boolean' | 'number' | 'timestamp' | 'date' | 'text';

const calendarDate = /^\d{4}-\d{2}-\d{2}$/;
/** `id`, `clientId`, `order_id`, `rideID`: keys, which the store keeps as text. */
const keyName = /(^id$|Id$|ID$|_id$)/;

/**
 * Whether a field's name (the last segment of its path) says it holds a key: its own (`id`) or
 * another record's (`rideId`, `client_id`). Every key column is text (`id`, the scope columns), so
 * such a field's column is text too, whatever the values look like: a join never compares text
 * with a number (PostgreSQL refuses `text = integer`).
 */
export function isKeyName(segment: string): boolean {
  return keyName.test(segment);
}

/** The kind of a non-null scalar value (string, number or boolean). */
export function kindOf(value: string | number | boolean): ValueKind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  if (calendarDate.test(value)) return 'date';
  return zonedDateTime.test(value) ? 'timestamp' : 'text';
}

/**
 * The type of a new column from the kinds of the values seen for it: one kind gives its type,
 * any mix gives text (which holds every scalar). A field named like a key (`id`, `...Id`,
 * `..._id`) is text whatever it holds, so it joins the text keys it refers to.
 */
export function columnTypeFor(kinds: ReadonlySet<ValueKind>, lastSegment: string): ColumnType {
  if (isKeyName(lastSegment) || kinds.size !== 1) return 'text';
  const [kind] = kinds;
  return kind === 'text' ? 'text' : kind!;
}
