import type { Command } from '../store/outbox/command.js';
import type { CommandCount } from '../store/store.js';
import { formatTable } from './text-table.js';
import { outputWidth, wrapText } from './wrap-text.js';

/**
 * Commands as `tms-sync commands` and `push` show them: one line each, and below a command that has
 * one its whole last error (the TMS's answer), wrapped to the width, never cut.
 */
export function formatCommands(commands: readonly Command[], width = outputWidth()): string {
  if (commands.length === 0) return 'no commands\n';
  const rows = commands.map((command) => [
    String(command.id),
    command.kind,
    command.target ?? '',
    command.status,
    String(command.attempts),
    command.createdId ?? '',
    command.updatedAt.toISOString(),
  ]);
  const header = ['id', 'kind', 'target', 'status', 'attempts', 'created id', 'updated'];
  return formatTable(header, rows, '', (index) => {
    const error = commands[index]!.lastError;
    return error ? wrapText(`last error: ${error}`, width, '    ') : [];
  });
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
