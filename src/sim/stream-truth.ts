/** What exists upstream in one scope of one stream (docs/simulator.md, `GET /_sim/truth`). */
export interface ScopeTruth {
  /** The records that exist, exactly as the listing returns them. */
  records: unknown[];
  /** Keys of the records that are soft-deleted (listed under `status=deleted`). */
  deletedIds: string[];
}

/**
 * The whole truth: stream name (docs/streams.md) -> scope -> records. The scope is `""` for
 * unscoped streams, the operator id for per-operator streams, the parent's id for child streams.
 */
export type StreamTruth = Record<string, Record<string, ScopeTruth>>;
