import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../config/load-settings.js';
import { SettingsError } from '../../config/settings-error.js';

describe('the write-back settings', () => {
  it('uses the documented defaults, takes the config file, and lets the environment win', () => {
    expect(loadSettings({}).commands).toEqual({
      concurrency: 4,
      maxAttempts: 10,
      leaseMs: 60_000,
      retryMs: 2000,
      everyMs: 2000,
    });
    const path = join(mkdtempSync(join(tmpdir(), 'tms-settings-')), 'config.json');
    writeFileSync(path, JSON.stringify({ commands: { concurrency: 2, leaseMs: 5000 } }));
    expect(loadSettings({ TMS_SYNC_CONFIG: path, COMMANDS_LEASE_MS: '9000' }).commands).toMatchObject({
      concurrency: 2,
      leaseMs: 9000,
      maxAttempts: 10,
    });
  });

  it('names the variable of a value out of range', () => {
    expect(() => loadSettings({ COMMANDS_LEASE_MS: '10' })).toThrow(SettingsError);
    expect(() => loadSettings({ COMMANDS_LEASE_MS: '10' })).toThrow(/COMMANDS_LEASE_MS/);
    expect(() => loadSettings({ COMMANDS_CONCURRENCY: 'many' })).toThrow(/COMMANDS_CONCURRENCY/);
  });
});
