/**
 * Record ids. `plain`: the 1-based record number as 10 zero-padded digits, so lexical order is
 * numeric order ("0000000042"). `unsafe`: the same number wrapped in characters that must be
 * percent-encoded in a path ("inv/0000000042 #?%"); still sortable, as prefix and suffix never vary.
 * `dots`: the first two records are `.` and `..` (sorted before any digit), the rest plain.
 */
export interface IdFormat {
  /** Id of the record at `index` (0-based). */
  format(index: number): string;
  /** Index of the record with this id, or undefined when the id has not this shape. */
  parse(id: string): number | undefined;
}

const width = 10;

/** The ids of the first records in the `dots` style: dot segments, if a client sends them raw. */
const dotIds = ['.', '..'];

export function createIdFormat(style: 'plain' | 'unsafe' | 'dots', prefix: string): IdFormat {
  if (style === 'dots') return dotsFormat(createIdFormat('plain', prefix));
  const head = style === 'plain' ? '' : `${prefix}/`;
  const tail = style === 'plain' ? '' : ' #?%';
  return {
    format: (index) => head + String(index + 1).padStart(width, '0') + tail,
    parse(id) {
      if (id.length !== head.length + width + tail.length || !id.startsWith(head) || !id.endsWith(tail)) {
        return undefined;
      }
      const digits = id.slice(head.length, head.length + width);
      return /^\d+$/.test(digits) && digits !== '0000000000' ? Number(digits) - 1 : undefined;
    },
  };
}

function dotsFormat(plain: IdFormat): IdFormat {
  return {
    format: (index) => dotIds[index] ?? plain.format(index),
    parse(id) {
      const dot = dotIds.indexOf(id);
      if (dot >= 0) return dot;
      const index = plain.parse(id);
      return index !== undefined && index >= dotIds.length ? index : undefined;
    },
  };
}

/**
 * Id of a child record (line, payment, contact, address-book entry): the parent's id, a dash, a
 * letter for the kind and a 4-digit number, so children sort in creation order under their parent.
 */
export function childId(parentId: string, kind: string, number: number): string {
  return `${parentId}-${kind}${String(number).padStart(4, '0')}`;
}
