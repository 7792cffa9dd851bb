/** A user's reference to a shared value: `release` once; the last user's release ends the value. */
export interface SharedReference<T> {
  readonly value: T;
  /** `fresh`: this reference made the value (no user held it before). */
  readonly fresh: boolean;
  release(): Promise<void>;
}

/**
 * Values a process makes once per key and shares among their users (the PostgreSQL pool of a
 * database, in a worker of many connections), ended by the last user's release. A key taken again
 * after that gets a new value, never one that is ending.
 */
export function sharedByKey<T>(
  end: (value: T) => Promise<void>,
): (key: string, make: () => T) => SharedReference<T> {
  const entries = new Map<string, { readonly value: T; users: number }>();
  return (key, make) => {
    let entry = entries.get(key);
    const fresh = entry === undefined;
    if (!entry) {
      entry = { value: make(), users: 0 };
      entries.set(key, entry);
    }
    entry.users += 1;
    const taken = entry;
    let released = false;
    return {
      value: taken.value,
      fresh,
      async release() {
        if (released) return;
        released = true;
        taken.users -= 1;
        if (taken.users > 0) return;
        // Out of the map before it ends: a user arriving meanwhile makes a new one, not one ending.
        entries.delete(key);
        await end(taken.value);
      },
    };
  };
}
