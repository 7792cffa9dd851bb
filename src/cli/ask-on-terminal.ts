import { createInterface } from 'node:readline/promises';

/**
 * Asks a yes/no question on the terminal: true only for "y" or "yes". Undefined when there is no
 * terminal to ask (stdin or stderr not a TTY: cron, CI, a pipe), where the caller needs `--yes`.
 */
export async function askOnTerminal(question: string): Promise<boolean | undefined> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await terminal.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    terminal.close();
  }
}
