/**
 * Text broken into lines of at most `width` characters at spaces (a word longer than a line is cut),
 * each prefixed by `indent`: a long reason shown whole instead of cut off.
 */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const room = Math.max(20, width - indent.length);
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    for (let start = 0; start < word.length; start += room) {
      const piece = word.slice(start, start + room);
      if (line === '') line = piece;
      else if (line.length + 1 + piece.length <= room) line += ` ${piece}`;
      else {
        lines.push(line);
        line = piece;
      }
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((item) => `${indent}${item}`);
}

/** The width to wrap at: the terminal's, else 100 (a log, a pipe, cron mail). */
export function outputWidth(): number {
  return process.stdout.isTTY && process.stdout.columns > 40 ? process.stdout.columns : 100;
}
