/**
 * Every key-like value at a dotted path of a record, stepping through arrays at any level
 * (`goods.id` of a task): the ids one stream finds in another's rows. Iterative: arrays nested
 * thousands deep cannot overflow the stack. Imports nothing, so the SQLite thread runs it too.
 */
export function valuesAtPath(path: string): (record: unknown) => string[] {
  const steps = path.split('.');
  return (record) => {
    const out: string[] = [];
    const pending: Array<[value: unknown, step: number]> = [[record, 0]];
    for (let next = pending.pop(); next; next = pending.pop()) {
      const [value, step] = next;
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], step]);
      } else if (step === steps.length) {
        const text = keyText(value);
        if (text !== null) out.push(text);
      } else if (value !== null && typeof value === 'object') {
        pending.push([(value as Record<string, unknown>)[steps[step]!], step + 1]);
      }
    }
    return out;
  };
}

/** A key as the `id` column holds it; a string holding U+0000 is none (PostgreSQL's text cannot hold it). */
export function keyText(value: unknown): string | null {
  if (typeof value === 'string') return value === '' || value.includes('\u0000') ? null : value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return null;
}
