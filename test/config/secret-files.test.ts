import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../config/load-settings.js';
import { SettingsError } from '../../config/settings-error.js';

const dir = mkdtempSync(join(tmpdir(), 'tms-secret-files-'));
let files = 0;
/** A secret file as Docker and Kubernetes mount them: the value and a line break. */
function secretFile(content: string): string {
  const path = join(dir, `secret-${files++}`);
  writeFileSync(path, content);
  return path;
}

function errorOf(run: () => unknown): SettingsError {
  try {
    run();
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('expected a SettingsError');
}

describe('secrets from files (<NAME>_FILE)', () => {
  it.each([
    ['TMS_API_TOKEN', 'apiToken', 'api-token-from-a-file'],
    ['TMS_DRIVER_TOKEN', 'driverToken', 'driver-jwt-from-a-file'],
    ['STORE_URL', 'storeUrl', 'postgres://tms:s3cret@db:5432/tms'],
    ['REDIS_URL', 'redisUrl', 'redis://:s3cret@redis:6379'],
  ] as const)('%s_FILE sets %s to the file content, less its line break', (name, key, value) => {
    const settings = loadSettings({ [`${name}_FILE`]: secretFile(`${value}\n`) });
    expect(settings[key]).toBe(value);
  });

  it.each([
    ['OPS_DASHBOARD_TOKEN', 'dashboardToken'],
    ['TMS_WEBHOOK_SECRET', 'webhookSecret'],
  ] as const)("%s_FILE sets the worker's %s", (name, key) => {
    const settings = loadSettings({ [`${name}_FILE`]: secretFile('9f1c0b7e44d2a6be\r\n') });
    expect(settings.worker[key]).toBe('9f1c0b7e44d2a6be');
  });

  it('refuses a secret given both ways, naming the variables and not the value', () => {
    const error = errorOf(() =>
      loadSettings({ TMS_API_TOKEN: 'in-the-env', TMS_API_TOKEN_FILE: secretFile('in-a-file') }),
    );
    expect(error.setting).toBe('TMS_API_TOKEN_FILE');
    expect(error.message).toContain('TMS_API_TOKEN is set too');
    expect(error.message).not.toMatch(/in-the-env|in-a-file/);
  });

  it('refuses a file that cannot be read, or that holds nothing', () => {
    const missing = errorOf(() => loadSettings({ TMS_WEBHOOK_SECRET_FILE: join(dir, 'no-such-file') }));
    expect(missing.setting).toBe('TMS_WEBHOOK_SECRET_FILE');
    expect(missing.message).toContain('ENOENT');
    const empty = errorOf(() => loadSettings({ TMS_API_TOKEN_FILE: secretFile('\n') }));
    expect(empty.message).toContain('is empty');
  });
});

describe('placeholder secrets', () => {
  it.each([
    ['OPS_DASHBOARD_TOKEN', 'change-me'],
    ['OPS_DASHBOARD_TOKEN', 'CHANGE_ME'],
    ['TMS_WEBHOOK_SECRET', 'change-me-too'],
    ['TMS_WEBHOOK_SECRET', 'changeme'],
    ['TMS_WEBHOOK_SECRET', 'secret'],
    ['OPS_DASHBOARD_TOKEN', '<your-token>'],
  ])('refuse to start the dashboard or webhook: %s=%s', (name, value) => {
    const error = errorOf(() => loadSettings({ [name]: value }));
    expect(error.setting).toBe(name);
    expect(error.message).toContain('placeholder');
  });

  it('are refused from a file as well', () => {
    const error = errorOf(() => loadSettings({ OPS_DASHBOARD_TOKEN_FILE: secretFile('change-me\n') }));
    expect(error.setting).toBe('OPS_DASHBOARD_TOKEN');
  });

  it('leave a secret of your own alone', () => {
    const settings = loadSettings({
      OPS_DASHBOARD_TOKEN: 'c0ffee-7d1e-secret-42',
      TMS_WEBHOOK_SECRET: 'tokenish',
    });
    expect(settings.worker.dashboardToken).toBe('c0ffee-7d1e-secret-42');
  });
});
