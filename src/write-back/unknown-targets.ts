import type { CommandInput } from '../store/outbox/command.js';
import type { Store } from '../store/store.js';
import { isCommandKind, kindOf, targetStreams } from './command-kinds.js';

/**
 * Why some commands' targets look wrong: an invoice or client the mirror does not hold live (a typo,
 * an id of another system), which the TMS would refuse only at delivery. Undefined when every target
 * is held, or its stream never synced successfully here (the mirror cannot know: nothing is refused).
 */
export async function unknownTargets(
  store: Pick<Store, 'lastSuccesses' | 'liveKeys'>,
  commands: readonly CommandInput[],
): Promise<string | undefined> {
  const byStream = new Map<string, Set<string>>();
  for (const command of commands) {
    if (!isCommandKind(command.kind) || !command.target) continue;
    const target = kindOf(command.kind).target;
    if (target === 'none') continue;
    const stream = targetStreams[target];
    byStream.set(stream, (byStream.get(stream) ?? new Set()).add(command.target));
  }
  const synced = new Set((await store.lastSuccesses()).map((success) => success.stream));
  for (const [stream, targets] of byStream) {
    if (!synced.has(stream)) continue;
    const held = await store.liveKeys(stream, [...targets]);
    const missing = [...targets].filter((target) => !held.has(target));
    if (missing.length === 0) continue;
    const ids =
      missing.slice(0, 5).join(', ') + (missing.length > 5 ? ` and ${missing.length - 5} more` : '');
    return (
      `target ${ids} ${missing.length === 1 ? 'is' : 'are'} not in the mirror (no live row in ${stream}): ` +
      `check the id, sync ${stream} if it is new, or add --allow-unknown-target`
    );
  }
  return undefined;
}
