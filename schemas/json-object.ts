/**
 * A record as the TMS sends it: a JSON object, whatever its fields. docs/api.md guarantees a record's
 * key and little else (docs/records.md): every other field may be absent, null, of another type,
 * nested, or new, so the product reads records as plain objects and never checks their fields.
 */
export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON type of a value, as a reader would name it (`string`, `array`, `null`, ...). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
