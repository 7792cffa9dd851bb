import type { StreamDefinition } from '../../config/stream-definition.js';
import { type StreamName, streams } from '../../config/streams.js';

const catalogue: Readonly<Record<string, StreamDefinition>> = streams;

/** The streams whose rows are refreshed per changed record of `parent` (child strategy). */
export function childStreamsOf(parent: string): readonly string[] {
  return onceEach(childrenOf, parent, () =>
    Object.entries(catalogue)
      .filter(([, definition]) => definition.strategy === 'child' && definition.parent === parent)
      .map(([name]) => name),
  );
}

/** The streams whose ids come from `stream`'s rows (the goods, balances and folders of the tasks). */
export function idsReadersOf(stream: string): readonly string[] {
  return onceEach(idsReaders, stream, () =>
    Object.entries(catalogue)
      .filter(([, definition]) => definition.strategy === 'snapshot' && definition.idsFrom?.stream === stream)
      .map(([name]) => name),
  );
}

// The catalogue does not change: each answer is worked out once per stream, not once per run
// (an idle cycle of 6,000 partitions asked ~6,000 times, each a walk of the whole catalogue).
const childrenOf = new Map<string, readonly string[]>();
const idsReaders = new Map<string, readonly string[]>();
const dependencies = new Map<string, readonly string[]>();

function onceEach(answers: Map<string, readonly string[]>, stream: string, find: () => string[]) {
  let answer = answers.get(stream);
  if (answer === undefined) {
    // Frozen, every answer has one hidden class, empty or not (no measured change in speed:
    // docs/performance-history.md, "2026-12-04 (first cycle against third)").
    answer = Object.freeze(find());
    answers.set(stream, answer);
  }
  return answer;
}

/** The streams a stream reads from the store: its parent, or the stream whose rows supply its ids. */
export function dependenciesOf(stream: string): readonly string[] {
  return onceEach(dependencies, stream, () => {
    const definition = catalogue[stream];
    if (definition?.strategy === 'child') return [definition.parent];
    if (definition?.strategy === 'snapshot' && definition.idsFrom) return [definition.idsFrom.stream];
    return [];
  });
}

/**
 * The partition of a since listing that holds its live rows (`''`): a stream reading its rows waits
 * for that one, not for its `deleted` partition, which commits first when it is small.
 */
export function liveListingOf(stream: string): string | undefined {
  return catalogue[stream]?.strategy === 'sequence' ? '' : undefined;
}

/** A per-operator stream reading another: it reads the partition of its own operator only. */
export function readsOwnOperator(stream: string): boolean {
  const definition = catalogue[stream];
  return definition?.strategy === 'snapshot' && definition.scope === 'operator';
}

/** `stream` or `stream/partition`, as logs, tables and commands name a partition. */
export function partitionLabel(target: { readonly stream: string; readonly partition: string }): string {
  return target.partition ? `${target.stream}/${target.partition}` : target.stream;
}

/** The named streams, each after the streams it depends on (catalogue order otherwise). */
export function inRunOrder(names: readonly string[]): StreamName[] {
  const wanted = new Set(names);
  const ordered: string[] = [];
  const visit = (name: string): void => {
    if (ordered.includes(name)) return;
    for (const dependency of dependenciesOf(name)) if (wanted.has(dependency)) visit(dependency);
    ordered.push(name);
  };
  for (const name of Object.keys(catalogue)) if (wanted.has(name)) visit(name);
  return ordered as StreamName[];
}

export function isStreamName(name: string): name is StreamName {
  return Object.hasOwn(catalogue, name);
}
