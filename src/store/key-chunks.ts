/** Keys a statement of a read by a list of keys asks for: well within both dialects' parameter limits. */
const keysPerStatement = 1000;

/** Runs `read` over the keys, `keysPerStatement` at a time, one after the other. */
export async function forKeyChunks<K>(
  keys: readonly K[],
  read: (some: readonly K[]) => Promise<void>,
): Promise<void> {
  for (let from = 0; from < keys.length; from += keysPerStatement)
    await read(keys.slice(from, from + keysPerStatement));
}
