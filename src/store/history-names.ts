/**
 * Names of a stream's history objects (docs/history.md). A stream with history keeps its closed
 * versions in `<stream>__versions` and shows every version in the view `<stream>__history`: the
 * closed ones and the open one, read from the current row.
 */
export function versionsTableName(stream: string): string {
  return `${stream}__versions`;
}

export function historyViewName(stream: string): string {
  return `${stream}__history`;
}

/** The index "as of" queries use: (scope, id, valid_from) on the versions table. */
export function asOfIndexName(stream: string): string {
  return `${stream}__asof`;
}

/** Trigger (and PostgreSQL function) names: `<stream>__hist_<what>`. */
export function historyTriggerName(stream: string, what: 'upd' | 'pin' | 'fn'): string {
  return `${stream}__hist_${what}`;
}

/**
 * Bookkeeping of the open version on the current row of a table with history: when it began
 * (null: the row was not versioned since it was inserted, so `deleted_at` or else `synced_at`),
 * which change opened it and which run.
 */
export const historyColumns = ['history_from', 'history_change', 'history_run'] as const;

/** The longest stream name history can take: `<stream>__versions` must fit PostgreSQL's 63. */
export const maxHistoryStreamName = 63 - '__versions'.length;
