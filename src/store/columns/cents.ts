/**
 * A number in hundredths, exactly: `12.5` and `"12.50"` -> 1250, computed on its decimal digits
 * (never `value * 100` on a float: 1.15 * 100 is 114.99999999999999). More than two decimals are
 * rounded half away from zero, as PostgreSQL's `round` does. Undefined beyond ±2^53 hundredths.
 */
export function toCents(value: number | string): number | undefined {
  let text = typeof value === 'number' ? String(value) : value;
  // JavaScript writes very small and very large numbers with an exponent.
  if (/e/i.test(text)) text = (value as number).toFixed(20).replace(/0+$/, '');
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match;
  let cents = BigInt(whole!) * 100n + BigInt((fraction.slice(0, 2) || '0').padEnd(2, '0'));
  if ((fraction[2] ?? '0') >= '5') cents += 1n;
  const signed = sign === '-' ? -cents : cents;
  return signed >= BigInt(Number.MIN_SAFE_INTEGER) && signed <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(signed)
    : undefined;
}
