import { closestName } from './closest-name.js';
import { fileKeyOfVariable } from './setting-variables.js';
import { SettingsError } from './settings-error.js';
import { SettingsFile } from './settings-file.js';
import { streams } from './streams.js';

/** The parts of a TypeBox schema the walk reads. */
interface SchemaNode {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly additionalProperties?: boolean | SchemaNode;
  readonly patternProperties?: Readonly<Record<string, SchemaNode>>;
  readonly anyOf?: readonly SchemaNode[];
  /** A map whose keys are names the user chose (`connections`), each value checked by the map's schema. */
  readonly keysAreNames?: boolean;
}

const streamNames = Object.keys(streams);

/**
 * Refuses the first key of the config file its schema does not know, at any depth, before the
 * values are checked: a typo would otherwise read as a wrong value (`streams/inclde: Expected
 * object`) or be taken as a stream. The error names the key, its group and the key most likely
 * meant: `unknown key "inclde" in streams; did you mean "include"?`. The maps keyed by stream
 * (`streams`, `streamSchedules`, `streamReconcileSchedules`) know the catalogue's streams; the
 * entries of `connections` are checked by their own schema, whatever their names.
 */
export function checkUnknownKeys(file: string, parsed: unknown): void {
  walk(file, parsed, SettingsFile as SchemaNode, []);
}

function walk(file: string, value: unknown, schema: SchemaNode, path: readonly string[]): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  const node = schema.anyOf?.find((member) => member.type === 'object') ?? schema;
  if (node.type !== 'object') return;
  const map = mapValueSchema(node);
  if (map && node.keysAreNames) {
    for (const [key, child] of Object.entries(value)) walk(file, child, map, [...path, key]);
    return;
  }
  const known = [...Object.keys(node.properties ?? {}), ...(map ? streamNames : [])];
  for (const [key, child] of Object.entries(value)) {
    const childSchema = node.properties?.[key] ?? (map && streamNames.includes(key) ? map : undefined);
    if (!childSchema) throw unknownKey(file, [...path, key], known);
    walk(file, child, childSchema, [...path, key]);
  }
}

/** The schema of a map's values (a stream's settings), or undefined for a group of fixed keys. */
function mapValueSchema(node: SchemaNode): SchemaNode | undefined {
  if (typeof node.additionalProperties === 'object') return node.additionalProperties;
  const pattern = Object.values(node.patternProperties ?? {});
  return pattern[0];
}

function unknownKey(file: string, path: readonly string[], known: readonly string[]): SettingsError {
  const key = path.at(-1)!;
  const group = path.length > 1 ? path.slice(0, -1).join('.') : undefined;
  const where = group === undefined ? 'the file' : group;
  const problem = `unknown key "${key}" in ${where}${hint(key, group, known)}`;
  return new SettingsError(`${file}/${path.join('/')}`, problem);
}

/** The key meant: in the same group, else anywhere in the file (dotted); camelCase named when it helps. */
function hint(key: string, group: string | undefined, known: readonly string[]): string {
  const camelCase = /[_-]|^[A-Z0-9]+$/.test(key)
    ? "; the file's keys are camelCase (config/tms-sync.example.jsonc lists them)"
    : '';
  const variable = group === undefined ? fileKeyOfVariable[key] : undefined;
  if (variable) return `${camelCase}: the file sets ${key} as "${variable}"`;
  const near = closestName(key, known);
  if (near) return `${camelCase}; did you mean "${near}"?`;
  const elsewhere = closestName(key, allKeys());
  if (elsewhere) return `${camelCase}; did you mean "${elsewhere}"?`;
  return group === undefined || !known.some((name) => streamNames.includes(name))
    ? camelCase
    : `${camelCase}: neither a setting of ${group} nor a stream of the catalogue (docs/streams.md)`;
}

/** Every key of the file's schema, dotted below its group (`sync.pageLimit`), with its leaf too. */
function allKeys(): string[] {
  const keys: string[] = [];
  const visit = (schema: SchemaNode, prefix: string) => {
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      keys.push(`${prefix}${name}`);
      visit(child, `${prefix}${name}.`);
    }
  };
  visit(SettingsFile as SchemaNode, '');
  return keys;
}
