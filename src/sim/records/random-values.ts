type Json = Record<string, unknown>;

/**
 * A value in another JSON type, as another TMS would send it: a number as a numeric string, a
 * string as an object (`{name}` or `{value, code}`), a boolean as `yes`/`no` or 0/1, an array
 * inside an object. `variant` (any integer) picks among the forms; objects and null stay.
 */
export function retyped(value: unknown, variant: number): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (typeof value === 'string')
    return variant % 2 === 0 ? { name: value } : { value, code: value.slice(0, 3) };
  if (typeof value === 'boolean') return variant % 2 === 0 ? (value ? 'yes' : 'no') : value ? 1 : 0;
  if (Array.isArray(value)) return { items: value, count: value.length };
  return value;
}

/** An object's fields laid flat into `out` with the object's name as prefix (`totals.net` -> `totalsNet`). */
export function flattenInto(out: Json, field: string, value: Json): void {
  for (const [key, inner] of Object.entries(value))
    out[`${field}${key[0]!.toUpperCase()}${key.slice(1)}`] = inner;
}

/** Fields a TMS of the random kind adds: scalars of several types, an object, an array, a null. */
const newFields: ReadonlyArray<(h: number) => [string, unknown]> = [
  (h) => ['externalRef', `X-${h % 100000}`],
  (h) => ['score', (h % 1000) / 10],
  (h) => ['flags', { archived: h % 2 === 0, priority: h % 5 }],
  (h) => ['labels', h % 3 === 0 ? [] : ['north', `zone-${h % 7}`]],
  (h) => ['updatedBy', { id: `u${h % 50}`, name: `User ${h % 50}` }],
  (h) => ['isLocked', h % 4 === 0],
  () => ['syncHint', null],
];

/**
 * Adds `count` new fields to `out` (never replacing one it has): which ones from `streamHash`, so a
 * stream always has the same new fields; their values from `recordHash`, so records differ.
 */
export function addNewFields(out: Json, count: number, streamHash: number, recordHash: number): void {
  for (let i = 0; i < count; i++) {
    const [name, value] = newFields[(streamHash + i * 3) % newFields.length]!(recordHash + i);
    if (!(name in out)) out[name] = value;
  }
}
