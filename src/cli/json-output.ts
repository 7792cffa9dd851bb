/**
 * What a `--json` flag prints: indented for a person at a terminal, on one line when piped (to jq,
 * a monitor, a script). `status --json` of 20,000 partitions is 11 MB indented, and indenting it
 * took longer than reading the store.
 */
export function jsonOutput(value: unknown, terminal = process.stdout.isTTY === true): string {
  return `${JSON.stringify(value, null, terminal ? 2 : undefined)}\n`;
}
