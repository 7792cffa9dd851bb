import { Type } from '@sinclair/typebox';
import { SettingsError } from './settings-error.js';

/**
 * A list setting in the config file: an array (of strings, or integers for ids written as
 * numbers) or one comma-separated string, the environment's form, so a value moves between the
 * two unchanged.
 */
export const ListValue = Type.Union([
  Type.Array(Type.Union([Type.String({ minLength: 1 }), Type.Integer()])),
  Type.String(),
]);

/** A list as written in the file or the environment, as its items: trimmed, none empty. */
export function toList(value: string | readonly (string | number)[]): string[] {
  const items = typeof value === 'string' ? value.split(',') : value.map(String);
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * A list from an environment variable: comma-separated, or a JSON array as the file takes it
 * (`["1001","1002"]`); a malformed array names the variable.
 */
export function listFromEnvironment(name: string, value: string): string[] {
  if (!value.trim().startsWith('[')) return toList(value);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new SettingsError(name, 'starts with "[" but is not a JSON array: write ["a","b"] or a,b');
  }
  const items = Array.isArray(parsed) ? parsed : [undefined];
  if (!items.every((item) => typeof item === 'string' || Number.isInteger(item)))
    throw new SettingsError(name, 'a JSON array of strings or integers, or a comma-separated list');
  return toList(items as (string | number)[]);
}
