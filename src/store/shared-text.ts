import { processTable } from './process-table.js';

const texts = processTable<string>(10_000);

/** The process's copy of a statement's text: stores of the same tables hold one string, not one each. */
export function sharedText(text: string): string {
  return texts(text, () => text);
}
