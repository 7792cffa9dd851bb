import type { JsonObject } from '../../schemas/json-object.js';

/** A body field whose type docs/api.md shows (Records): checked when a command is added and admitted. */
export interface BodyField {
  readonly type: 'number' | 'date' | 'string';
  /** The command means nothing without it (a payment's amount). @default false */
  readonly required?: boolean;
}

/** The first field of `body` that is not what docs/api.md says it is, as one line; undefined when all are. */
export function bodyFieldProblem(
  fields: Readonly<Record<string, BodyField>>,
  body: JsonObject,
): string | undefined {
  for (const [name, field] of Object.entries(fields)) {
    const value = body[name];
    if (value === undefined) {
      if (field.required) return `body needs "${name}" (${expected[field.type]})`;
      continue;
    }
    if (!fits[field.type](value))
      return `body field "${name}" must be ${expected[field.type]}, got ${shown(value)}`;
  }
  return undefined;
}

/** The body's fields docs/api.md does not show for the kind: sent as they are, for the TMS to judge. */
export function unshownFields(fields: Readonly<Record<string, BodyField>>, body: JsonObject): string[] {
  return Object.keys(body).filter((name) => !Object.hasOwn(fields, name));
}

const expected = {
  number: 'a JSON number (125.50)',
  date: 'a calendar date YYYY-MM-DD (2026-11-20)',
  string: 'a string',
} as const;

const fits: Record<BodyField['type'], (value: unknown) => boolean> = {
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  date: (value) => typeof value === 'string' && isCalendarDate(value),
  string: (value) => typeof value === 'string',
};

/** `YYYY-MM-DD` naming a day that exists (not 2026-02-30). */
function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
