/**
 * A plain text table: columns padded to their widest cell, trailing spaces trimmed, one line each;
 * `below` adds lines under a row (a long error, wrapped) that take no part in the columns.
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  indent = '',
  below: (row: number) => readonly string[] = () => [],
): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: readonly string[]) =>
    `${indent}${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd();
  return `${[line(header), ...rows.flatMap((row, index) => [line(row), ...below(index)])].join('\n')}\n`;
}
