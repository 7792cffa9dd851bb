import { thousands } from './thousands.js';

/**
 * A stream with more partitions than this is one row of a table (`sync`'s summary, `status`,
 * `trigger`'s runs): one per operator makes thousands of rows otherwise.
 */
export const partitionRowsPerStream = 10;

/**
 * The rows of a table of partitions: per stream in the order first met, a row per partition,
 * or one row (`perStream`) for a stream of more than `partitionRowsPerStream`.
 */
export function streamRows<T extends { readonly stream: string }, R>(
  items: readonly T[],
  perPartition: (item: T) => R,
  perStream: (group: readonly T[]) => R,
): R[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.stream);
    if (group) group.push(item);
    else groups.set(item.stream, [item]);
  }
  return [...groups.values()].flatMap((group) =>
    group.length > partitionRowsPerStream ? [perStream(group)] : group.map(perPartition),
  );
}

/**
 * A stream row's state or result: the one value its partitions share, or, mixed, each with its
 * count (`498 succeeded, 2 failed`), those of `order` first in that order, then the others as met.
 */
export function valueCounts(values: readonly string[], order: readonly string[] = []): string {
  const counts = new Map<string, number>(order.map((value) => [value, 0]));
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  for (const [value, n] of counts) if (n === 0) counts.delete(value);
  if (counts.size === 1) return values[0]!;
  return [...counts].map(([value, n]) => `${thousands(n)} ${value}`).join(', ');
}
