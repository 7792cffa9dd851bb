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
