import type { CommandCount } from '../store/store.js';
import { formatTable } from './text-table.js';
import { reviewWarning } from './write-back-table.js';

/** `status`'s write-back part: commands by kind and status, and the loud line when some need review. */
export function formatCommandStatus(counts: readonly CommandCount[]): string {
  if (counts.length === 0) return '';
  const statuses = ['pending', 'in_flight', 'done', 'failed', 'needs_review'];
  const kinds = [...new Set(counts.map((count) => count.kind))].sort();
  const rows = kinds.map((kind) => [
    kind,
    ...statuses.map((status) => {
      const count = counts.find((item) => item.kind === kind && item.status === status)?.count ?? 0;
      return count === 0 ? '' : String(count);
    }),
  ]);
  return `\nwrite-back commands (tms-sync commands)\n${formatTable(['kind', ...statuses], rows, '  ')}${reviewWarning(counts)}`;
}
