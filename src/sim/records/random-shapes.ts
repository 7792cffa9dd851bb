import { fateOf, nestName, renamed } from './random-fates.js';
import { addNewFields, flattenInto, retyped } from './random-values.js';
import { perRecord, shapeHash } from './shape-hash.js';
import { recordIdentity, type ShapeRules, shapeRules } from './shape-rules.js';

type Json = Record<string, unknown>;

/** One record being reshaped: what every choice about it depends on. */
interface Walk {
  readonly seed: number;
  /** The stream whose shape is served: fates are chosen per family, so both listings of a record agree. */
  readonly family: string;
  /** The record (or array element) per-record choices are made for. */
  readonly identity: string;
  readonly rules: ShapeRules;
}

/** Where one field of the object being built goes. */
interface Slot {
  /** The object being reshaped. */
  readonly source: Json;
  readonly out: Json;
  readonly nested: Json;
  readonly field: string;
  readonly path: string;
  readonly value: unknown;
}

/** Share of the records a `...Some` fate or a dropped key applies to. */
const someShare = 0.3;
/** Share of the records whose shown enum field holds a value outside docs/api.md's list. */
const offEnumShare = 0.15;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `--record-shapes random`: a TMS whose record shapes are chosen from a seed, so tests meet shapes
 * nobody wrote by hand. Per stream, every field docs/api.md does not show, nested ones included, is
 * kept, renamed, retyped, nulled or left out in some records, dropped, or moved into a nested
 * object, and 1-3 new fields appear; fields docs/api.md shows keep their names but are sometimes
 * absent, null or of another type, and shown enums sometimes hold a value outside docs/api.md's list.
 * Keys and the fields other streams are fetched by are never touched (shape-rules.ts), except keys
 * the engine may replace by a position, left out of some records. Every choice is a hash of
 * (seed, stream, path) or (seed, record, path): the same record is always served the same way.
 */
export function createRandomShapes(seed: number): (stream: string, record: Json) => Json {
  return (stream, record) => {
    const rules = shapeRules[stream];
    if (!rules) return record;
    const family = rules.family ?? stream;
    const walk: Walk = { seed, family, identity: recordIdentity(family, record), rules };
    const out = reshapeObject(walk, record, '');
    const streamHash = shapeHash(seed, family, '+fields');
    addNewFields(out, 1 + (streamHash % 3), streamHash, shapeHash(seed, walk.identity, '+fields'));
    return out;
  };
}

function reshapeObject(walk: Walk, object: Json, parent: string): Json {
  const out: Json = {};
  const nested: Json = {};
  for (const [field, value] of Object.entries(object)) {
    const path = parent === '' ? field : `${parent}.${field}`;
    if (walk.rules.protected.includes(path)) out[field] = value;
    else if (walk.rules.protected.some((kept) => kept.startsWith(`${path}.`)))
      out[field] = descend(walk, value, path);
    else if (path === walk.rules.droppableKey) {
      if (!perRecord(walk.seed, walk.identity, path, someShare)) out[field] = value;
    } else placeField(walk, { source: object, out, nested, field, path, value });
  }
  if (Object.keys(nested).length > 0)
    out[freeName(nestName(walk.seed, walk.family, parent), out, object)] = nested;
  return out;
}

function placeField(walk: Walk, slot: Slot): void {
  const { seed, family, identity } = walk;
  const { out, field, path, value } = slot;
  const fate = fateOf(seed, family, path, walk.rules.shown.includes(path.split('.')[0]!));
  const some = perRecord(seed, identity, path, someShare);
  if (fate === 'drop' || (fate === 'absentSome' && some)) return;
  if (fate === 'nullSome' && some) out[field] = null;
  else if (fate === 'nest') slot.nested[field] = descend(walk, value, path);
  else if (fate === 'rename')
    out[freeName(renamed(seed, family, path, field), out, slot.source)] = descend(walk, value, path);
  else if (fate === 'retype' && isObject(value)) flattenInto(out, field, value);
  else if (fate === 'retype' || (fate === 'retypeSome' && some && !isObject(value)))
    out[field] = retyped(value, shapeHash(seed, family, path));
  else out[field] = offEnum(walk, path, descend(walk, value, path));
}

/** Objects and arrays of objects are reshaped field by field (embedded records are already). */
function descend(walk: Walk, value: unknown, path: string): unknown {
  if (walk.rules.embedded?.[path] !== undefined) return value;
  if (isObject(value)) return reshapeObject(walk, value, path);
  if (Array.isArray(value) && value.length > 0 && value.every(isObject)) {
    return value.map((element, index) =>
      reshapeObject({ ...walk, identity: `${walk.identity}#${index}` }, element, path),
    );
  }
  return value;
}

function offEnum(walk: Walk, path: string, value: unknown): unknown {
  const others = walk.rules.offEnum?.[path];
  if (!others || typeof value !== 'string') return value;
  if (!perRecord(walk.seed, walk.identity, `${path}=`, offEnumShare)) return value;
  return others[shapeHash(walk.seed, walk.identity, path) % others.length];
}

/** `name`, or `name2`, ... when the record already has (or will have) a field of that name. */
function freeName(name: string, ...taken: readonly Json[]): string {
  let free = name;
  while (taken.some((object) => free in object)) free = `${free}2`;
  return free;
}
