import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resolveSimOptions, SimOptionsError } from '../../src/sim/resolve-sim-options.js';

function runCli(
  args: string[],
  untilOutput?: RegExp,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/tms-sync.js', 'sim', ...args], { cwd: process.cwd() });
    let stdout = '';
    let stderr = '';
    let stopping = false;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (!stopping && untilOutput?.test(stdout)) {
        stopping = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('tms-sim options', () => {
  it('fills every option with its default and freezes the result', () => {
    const options = resolveSimOptions({ invoices: 5, variant: { idStyle: 'unsafe' } });
    expect(options).toMatchObject({ seed: 1, invoices: 5, clients: 200, apiToken: 'dev-api-token' });
    expect(options.variant).toMatchObject({
      idStyle: 'unsafe',
      errorBody: 'json',
      sequenceField: 'sequence',
    });
    expect(Object.isFrozen(options)).toBe(true);
  });

  it('names the option that is wrong', () => {
    const attempts = [
      [{ invoices: -1 }, 'invoices'],
      [{ faults: 'chaos' }, 'faults'],
      [{ faults: { reset: 2 } }, 'faults'],
      [{ variant: { sequenceField: 'id' } }, 'variant.sequenceField'],
      [{ variant: { errorBody: 'xml' } }, 'variant.errorBody'],
      [{ variant: { recordShapes: 'weird' } }, 'variant.recordShapes'],
      [{ variant: { recordShapesSeed: -1 } }, 'variant.recordShapesSeed'],
    ] as const;
    for (const [input, option] of attempts) {
      expect(() => resolveSimOptions(input as never)).toThrow(SimOptionsError);
      try {
        resolveSimOptions(input as never);
      } catch (error) {
        expect((error as SimOptionsError).option).toBe(option);
      }
    }
  });

  it('exits with code 2 and one line naming the flag on a bad value', async () => {
    const bad = await runCli(['--invoices', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('tms-sync sim: --invoices must be a non-negative integer (got "many")');
    const badVariant = await runCli(['--id-style', 'weird']);
    expect(badVariant.code).toBe(2);
    expect(badVariant.stderr).toContain('--id-style');
    const badShapes = await runCli(['--record-shapes', 'weird']);
    expect(badShapes.code).toBe(2);
    expect(badShapes.stderr.trim()).toBe(
      'tms-sync sim: --record-shapes must be one of default, alt, random (got weird)',
    );
  });

  it('prints the URL and a curl line, and stops on SIGTERM', async () => {
    const run = await runCli(['--port', '0', '--invoices', '10'], /Stop with Ctrl-C/);
    expect(run.stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(run.stdout).toContain('curl -s -X POST');
    expect(run.stdout).toContain('tms-sim stopped');
    expect(run.code).toBe(0);
  });
});
