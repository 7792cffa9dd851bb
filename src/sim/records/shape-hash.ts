import { hash32 } from '../seeded-random.js';

// Every choice of a record-shapes variant is a hash of its inputs, never a draw from a random
// source: the same record is then served the same way whatever was served before it.

/** FNV-1a of a text, for mixing names into the seeded hash. */
export function textHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A well-spread unsigned 32-bit number for (seed, a, b): the same inputs, the same number. */
export function shapeHash(seed: number, a: string, b = ''): number {
  return hash32(seed, textHash(a), textHash(b));
}

/** True for about `share` (0..1) of the records: chosen by the record's identity and what is decided. */
export function perRecord(seed: number, identity: string, what: string, share: number): boolean {
  return shapeHash(seed ^ 0x5bd1e995, identity, what) % 1000 < share * 1000;
}
