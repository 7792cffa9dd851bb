/**
 * Where each record of an answer's items starts and ends in the answer's text, so a record can be
 * stored as the TMS wrote it instead of serialized again (docs/records.md, "How `data` spells a
 * record"). The text is one JSON.parse already read, so it is valid JSON: finding an item's end
 * is skipping strings and counting brackets, not parsing.
 */

const quote = 34;
const backslash = 92;
const comma = 44;
const colon = 58;
const openBrace = 123;
const closeBrace = 125;
const openBracket = 91;
const closeBracket = 93;

/** Deeper records are serialized (and fail there if too deep), as SQLite's JSON functions read no deeper. */
const maxItemDepth = 1000;

/** Scanning stops here: the text does not give the slices as JSON.parse read the items. */
const refused = -1;

/**
 * The items of the array at `path` (object keys from the root) as [start0, end0, start1, end1, ...],
 * or undefined where a slice could differ from what JSON.parse read, or not be compact:
 * - a key on the path given twice (JSON.parse keeps the last) or spelt with an escape;
 * - not exactly `count` items, or one that is not an object;
 * - whitespace inside an item (`data` holds records without it), or nesting deeper than 1000.
 */
export function itemSlices(text: string, path: readonly string[], count: number): Int32Array | undefined {
  if (path.length === 0) return undefined;
  const scan = new ItemScan(text, path, count);
  const end = scan.object(skipSpace(text, 0), 0);
  return end !== refused && scan.items === count ? scan.slices : undefined;
}

class ItemScan {
  readonly slices: Int32Array;
  items = 0;

  constructor(
    private readonly text: string,
    private readonly path: readonly string[],
    private readonly count: number,
  ) {
    this.slices = new Int32Array(count * 2);
  }

  /** The object at `start` on the path's `level`: its end, having met the path's key exactly once. */
  object(start: number, level: number): number {
    const { text, path } = this;
    if (text.charCodeAt(start) !== openBrace) return refused;
    let met = false;
    let at = skipSpace(text, start + 1);
    if (text.charCodeAt(at) === closeBrace) return refused;
    for (;;) {
      if (text.charCodeAt(at) !== quote) return refused;
      const keyEnd = stringEnd(text, at + 1);
      if (keyEnd === refused) return refused;
      const key = text.slice(at + 1, keyEnd);
      if (key.includes('\\')) return refused;
      at = skipSpace(text, keyEnd + 1);
      if (text.charCodeAt(at) !== colon) return refused;
      at = skipSpace(text, at + 1);
      if (key === path[level]) {
        if (met) return refused;
        met = true;
        at = level === path.length - 1 ? this.array(at) : this.object(at, level + 1);
      } else {
        at = valueEnd(text, at);
      }
      if (at === refused) return refused;
      at = skipSpace(text, at);
      const next = text.charCodeAt(at);
      if (next === closeBrace) return met ? at + 1 : refused;
      if (next !== comma) return refused;
      at = skipSpace(text, at + 1);
    }
  }

  /** The items' array at `start`: each item's slice, in order. */
  private array(start: number): number {
    const { text, slices } = this;
    if (text.charCodeAt(start) !== openBracket) return refused;
    let at = skipSpace(text, start + 1);
    if (text.charCodeAt(at) === closeBracket) return at + 1;
    for (;;) {
      if (this.items === this.count || text.charCodeAt(at) !== openBrace) return refused;
      const end = compoundEnd(text, at, true);
      if (end === refused) return refused;
      slices[this.items * 2] = at;
      slices[this.items * 2 + 1] = end;
      this.items += 1;
      at = skipSpace(text, end);
      const next = text.charCodeAt(at);
      if (next === closeBracket) return at + 1;
      if (next !== comma) return refused;
      at = skipSpace(text, at + 1);
    }
  }
}

/** The index of the quote that ends the string whose content starts at `from`. */
function stringEnd(text: string, from: number): number {
  for (let at = from; ; ) {
    const found = text.indexOf('"', at);
    if (found === -1) return refused;
    let backslashes = 0;
    while (text.charCodeAt(found - 1 - backslashes) === backslash) backslashes++;
    if (backslashes % 2 === 0) return found;
    at = found + 1;
  }
}

/** The index after the object or array opening at `start`; `compact` refuses whitespace in it. */
function compoundEnd(text: string, start: number, compact: boolean): number {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === quote) {
      at = stringEnd(text, at + 1);
      if (at === refused) return refused;
    } else if (c === openBrace || c === openBracket) {
      if (++depth > maxItemDepth) return refused;
    } else if (c === closeBrace || c === closeBracket) {
      if (--depth === 0) return at + 1;
    } else if (compact && c <= 32 && isSpace(c)) {
      return refused;
    }
  }
  return refused;
}

/** The index after the value starting at `start`. */
function valueEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === quote) {
    const end = stringEnd(text, start + 1);
    return end === refused ? refused : end + 1;
  }
  if (c === openBrace || c === openBracket) return compoundEnd(text, start, false);
  let at = start;
  for (; at < text.length; at++) {
    const d = text.charCodeAt(at);
    if (d === comma || d === closeBrace || d === closeBracket || isSpace(d)) break;
  }
  return at === start ? refused : at;
}

function skipSpace(text: string, from: number): number {
  let at = from;
  while (isSpace(text.charCodeAt(at))) at++;
  return at;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
