import { UsageError } from './cli-failure.js';

const unitSeconds: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration as the command line takes it: `90` or `90s`, `15m`, `2h`, `1d`, `1h30m`; seconds. */
export function parseDuration(text: string, option: string): number {
  const parts = [...text.trim().matchAll(/(\d+)([smhd]?)/g)];
  const whole = parts.map((part) => part[0]).join('');
  if (parts.length === 0 || whole !== text.trim() || (parts.length > 1 && parts.some((part) => !part[2])))
    throw new UsageError(`${option} ${text}: not a duration (e.g. 900, 900s, 15m, 2h, 1d)`);
  const seconds = parts.reduce((sum, part) => sum + Number(part[1]) * unitSeconds[part[2] || 's']!, 0);
  if (seconds <= 0) throw new UsageError(`${option} ${text}: must be more than 0`);
  return seconds;
}

/** `42s`, `12m 5s`, `3h 20m`, `2d 4h`: the largest unit and the next. */
export function formatDuration(seconds: number): string {
  const rest = Math.max(0, Math.round(seconds));
  const units = Object.entries(unitSeconds).reverse();
  const first = units.findIndex(([, size]) => rest >= size);
  if (first < 0) return '0s';
  const [unit, size] = units[first]!;
  const next = units[first + 1];
  const remainder = next ? Math.floor((rest % size) / next[1]) : 0;
  return `${Math.floor(rest / size)}${unit}${remainder > 0 ? ` ${remainder}${next![0]}` : ''}`;
}
