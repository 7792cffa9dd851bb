import { shapeHash } from './shape-hash.js';

/**
 * What becomes of a field in `random` record shapes, chosen once per (seed, stream, path):
 * `rename`, `retype`, `drop` and `nest` apply to every record, `nullSome`, `absentSome` and
 * `retypeSome` to about a third of them.
 */
export type Fate = 'keep' | 'rename' | 'retype' | 'drop' | 'nest' | 'nullSome' | 'absentSome' | 'retypeSome';

// Keep weighs most, so a shape stays recognisably a record of its stream.
const notShownFates: readonly Fate[] = [
  'keep',
  'keep',
  'keep',
  'rename',
  'retype',
  'nullSome',
  'drop',
  'nest',
  'absentSome',
];
// A field docs/api.md shows keeps its name: a reader may rely on the name, never on the value.
const shownFates: readonly Fate[] = ['keep', 'keep', 'nullSome', 'absentSome', 'retypeSome'];

/** The fate of the field at `path` of the stream's records. */
export function fateOf(seed: number, stream: string, path: string, shown: boolean): Fate {
  const fates = shown ? shownFates : notShownFates;
  return fates[shapeHash(seed, stream, path) % fates.length]!;
}

/** The new name of a renamed field: snake_case, a suffix or a prefix, per (seed, stream, path). */
export function renamed(seed: number, stream: string, path: string, field: string): string {
  const snake = field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  const forms = [
    snake === field ? `${field}_v2` : snake,
    `${field}Value`,
    `x${field[0]!.toUpperCase()}${field.slice(1)}`,
  ];
  return forms[shapeHash(seed ^ 0x51ed, stream, path) % forms.length]!;
}

/** The object nested fields move into, one per (seed, stream, path of the object holding them). */
export function nestName(seed: number, stream: string, path: string): string {
  const names = ['details', 'extra', 'attributes'];
  return names[shapeHash(seed ^ 0x2e57, stream, path) % names.length]!;
}
