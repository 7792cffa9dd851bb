import { describe, expect, it } from 'vitest';
import { jsonOutput } from '../../src/cli/json-output.js';

describe('what --json prints', () => {
  const value = {
    streams: [{ stream: 'tasks', partition: '1001', lastRun: null }],
    queue: { reachable: false },
  };

  it('is indented at a terminal and one line when piped, the same JSON either way, ending in a newline', () => {
    const terminal = jsonOutput(value, true);
    const piped = jsonOutput(value, false);
    expect(terminal).toContain('\n  "streams": [\n');
    expect(piped).toBe(`${JSON.stringify(value)}\n`);
    expect(JSON.parse(terminal)).toEqual(JSON.parse(piped));
    expect(terminal.endsWith('}\n')).toBe(true);
  });
});
