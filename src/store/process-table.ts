/**
 * Values held once per process by key: every connection has stores of its own, built from the same
 * catalogue, columns and statements, and each kept its own copies. At most `max` values, the
 * oldest dropped first; what `make` returns must never change once made.
 */
export function processTable<V>(max: number): (key: string, make: () => V) => V {
  const values = new Map<string, V>();
  return (key, make) => {
    const known = values.get(key);
    if (known !== undefined) return known;
    const made = make();
    if (values.size >= max) values.delete(values.keys().next().value!);
    values.set(key, made);
    return made;
  };
}
