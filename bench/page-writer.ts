import type { SourcePage } from './page-source.js';

/** Writes one page of the source somewhere; the loops differ only in this. */
export interface PageWriter {
  write(page: SourcePage): Promise<void> | void;
  close(): Promise<void> | void;
}

/** Fetch (and parse) only: the HTTP and JSON ceiling, and with `parse: false` the simulator's serving rate. */
export const noWriter: PageWriter = { write() {}, close() {} };

/** `INSERT ... ON CONFLICT (id) DO UPDATE SET` every written column but the key (both databases take it). */
export function upsertTail(columns: readonly string[]): string {
  return `ON CONFLICT ("id") DO UPDATE SET ${columns
    .slice(1)
    .map((name) => `"${name}" = excluded."${name}"`)
    .join(', ')}`;
}
