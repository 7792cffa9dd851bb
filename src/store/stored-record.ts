import { UnstorableRecordError } from './store-errors.js';

/** JSON text in which a string holds U+0000 (escaped `\u0000` after an even run of backslashes). */
const escapedNul = /(?:^|[^\\])(?:\\\\)*\\u0000/;

/**
 * How `data` holds a record: the record as received, serialized again. PostgreSQL's jsonb (and
 * text) cannot hold the character U+0000, which JSON allows in any string: a record holding it (in
 * a value or a field name) is stored instead as a JSON *string* whose content is the record's JSON
 * text, where U+0000 is the escape `\u0000`. Both dialects store it so. Records are always objects,
 * so a string in `data` is always such a record (`recordFromData` reads either back exactly; SQL:
 * `data #>> '{}'` in PostgreSQL, `json_extract(data, '$')` in SQLite, gives its JSON text).
 */
export function storedData(record: unknown): unknown {
  const text = JSON.stringify(record);
  return holdsNul(text) ? text : record;
}

/** The JSON text of one record's `data` (SQLite binds it per row); names a record too deep to serialize. */
export function dataJsonOf(stream: string, id: string, record: unknown): string {
  return serialized(stream, [{ id, data: record }], () => {
    const text = JSON.stringify(record);
    return holdsNul(text) ? JSON.stringify(text) : text;
  });
}

/**
 * The JSON text of a page's rows (PostgreSQL sends them as one parameter), each `data` as
 * `storedData` makes it: one serialization in the usual case, rows holding U+0000 serialized again
 * only when the page's text shows one.
 */
export function rowsJson(stream: string, rows: ReadonlyArray<{ id: string; data: unknown }>): string {
  return serialized(stream, rows, () => {
    const text = JSON.stringify(rows);
    return holdsNul(text)
      ? JSON.stringify(rows.map((row) => ({ ...row, data: storedData(row.data) })))
      : text;
  });
}

/** The record as received, from `data` as the dialect decoded it (see `storedData`). */
export function recordFromData(data: unknown): unknown {
  return typeof data === 'string' ? JSON.parse(data) : data;
}

function holdsNul(text: string): boolean {
  return text.includes('\\u0000') && escapedNul.test(text);
}

/** Runs a serialization; a record nested too deep for it fails its page, naming the record. */
function serialized(
  stream: string,
  rows: ReadonlyArray<{ id: string; data: unknown }>,
  serialize: () => string,
): string {
  try {
    return serialize();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const deep = rows.find((row) => !serializes(row.data)) ?? rows[0];
    throw new UnstorableRecordError(stream, deep?.id ?? '?', 'it is nested too deep to serialize');
  }
}

function serializes(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}
