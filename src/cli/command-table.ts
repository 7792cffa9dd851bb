import type { Command } from '../commands/command.js';
import type { CommandCount } from '../store/store.js';
import { formatTable } from './text-table.js';

/** Commands as `tms-sync commands` and `push` show them: one line each, the error cut to fit. */
export function formatCommands(commands: readonly Command[]): string {
  if (commands.length === 0) return 'no commands\n';
  const rows = commands.map((command) => [
    String(command.id),
    command.kind,
    command.target ?? '',
    command.status,
    String(command.attempts),
    command.createdId ?? '',
    command.updatedAt.toISOString(),
    oneLine(command.lastError ?? '', 100),
  ]);
  return formatTable(
    ['id', 'kind', 'target', 'status', 'attempts', 'created id', 'updated', 'last error'],
    rows,
  );
}

/**
 * The loud line about commands a person must look at: a create whose outcome could not be told
 * (it may exist upstream once, or not at all). Empty when none needs review.
 */
export function reviewWarning(counts: readonly CommandCount[]): string {
  const waiting = counts
    .filter((count) => count.status === 'needs_review')
    .reduce((sum, count) => sum + count.count, 0);
  if (waiting === 0) return '';
  const noun = waiting === 1 ? 'command needs' : 'commands need';
  return `warning: ${waiting} ${noun} review: the TMS may or may not have applied them; see tms-sync commands --status needs_review, then tms-sync command resolve\n`;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}
