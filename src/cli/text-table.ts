/** A plain text table: columns padded to their widest cell, trailing spaces trimmed, one line each. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  indent = '',
): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  return `${[header, ...rows]
    .map((row) => `${indent}${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd())
    .join('\n')}\n`;
}
