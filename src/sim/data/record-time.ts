// Dates of generated records are formatted from lookup tables: Date objects cost more than the
// rest of a record, and a listing builds thousands of records per page.

const dayMs = 86_400_000;
const firstDayMs = Date.UTC(2023, 0, 1);
const dayNames: string[] = [];
const twoDigits = Array.from({ length: 60 }, (_, value) => String(value).padStart(2, '0'));

/** Calendar date `YYYY-MM-DD` of day `day` after 2023-01-01. */
export function calendarDate(day: number): string {
  if (day < 0 || day > 20_000) return new Date(firstDayMs + day * dayMs).toISOString().slice(0, 10);
  while (dayNames.length <= day)
    dayNames.push(new Date(firstDayMs + dayNames.length * dayMs).toISOString().slice(0, 10));
  return dayNames[day]!;
}

/** The day number (as `calendarDate` takes it) of the UTC day holding the instant `ms`. */
export function dayOf(ms: number): number {
  return Math.floor((ms - firstDayMs) / dayMs);
}

/** Calendar date `days` after the date `date`. */
export function addDays(date: string, days: number): string {
  return calendarDate(Math.round((Date.parse(date) - firstDayMs) / dayMs) + days);
}

/** Base records were last modified from 2024-01-01 on, one second per sequence step, so modifiedAt grows with the sequence. */
export function baseModifiedAt(sequence: number, firstSequence: number): string {
  const seconds = sequence - firstSequence;
  const day = Math.floor(seconds / 86_400);
  const rest = seconds - day * 86_400;
  const hours = Math.floor(rest / 3600);
  const minutes = Math.floor((rest - hours * 3600) / 60);
  const secs = rest - hours * 3600 - minutes * 60;
  return `${calendarDate(365 + day)}T${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[secs]}.000Z`;
}

/** Money rounded to cents. */
export function cents(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/** A record's JSON with the sequence appended under the variant's field name. */
export function withSequence(json: string, field: string, sequence: number): string {
  return `${json.slice(0, -1)},"${field}":${sequence}}`;
}
