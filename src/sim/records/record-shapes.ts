import type { SimVariant } from '../sim-options.js';
import { altShapes } from './alt-shapes.js';
import { createRandomShapes } from './random-shapes.js';
import { shapeRules } from './shape-rules.js';

type Json = Record<string, unknown>;

/**
 * How a record is served: the simulator's own record in, the wire form out. `default` answers the
 * very object it was given, so callers can tell "unchanged" by identity; the others a new object.
 */
export type RecordShapes = (stream: string, record: Json) => Json;

/**
 * The record shapes of a variant (`variant.recordShapes`): `default` serves tms-sim's own shapes
 * unchanged; `alt` and `random` serve another TMS's (alt-shapes.ts, random-shapes.ts). Applied
 * only where a record is serialized, so the state, the changes and the admin routes never see it,
 * and `GET /_sim/truth` answers what the listings serve. `stream` is the catalogue's stream name
 * (docs/streams.md); records embedded in another (the planning's tasks, rides and goods) are
 * served in their own stream's shape, as one TMS would.
 */
export function createRecordShapes(
  variant: Pick<SimVariant, 'recordShapes' | 'recordShapesSeed'>,
): RecordShapes {
  const shape = variantShape(variant);
  if (!shape) return (_stream, record) => record;
  const reshape: RecordShapes = (stream, record) => shape(stream, withEmbedded(stream, record, reshape));
  return reshape;
}

function variantShape(
  variant: Pick<SimVariant, 'recordShapes' | 'recordShapesSeed'>,
): RecordShapes | undefined {
  if (variant.recordShapes === 'alt') return (stream, record) => altShapes[stream]?.(record) ?? record;
  if (variant.recordShapes === 'random') return createRandomShapes(variant.recordShapesSeed);
  return undefined;
}

function withEmbedded(stream: string, record: Json, reshape: RecordShapes): Json {
  const embedded = shapeRules[stream]?.embedded;
  if (!embedded) return record;
  const out = { ...record };
  for (const [field, inner] of Object.entries(embedded)) {
    const value = record[field];
    if (Array.isArray(value)) out[field] = value.map((element) => reshape(inner, element as Json));
  }
  return out;
}
