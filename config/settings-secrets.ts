import { processSecrets } from '../src/secrets/secret-registry.js';
import { urlSecrets } from '../src/secrets/url-credentials.js';
import type { Settings } from './settings.js';

/**
 * Adds every secret the settings hold to the process's registry (tokens, the webhook secret, the
 * passwords in STORE_URL and REDIS_URL), so that no message or log line shows them.
 */
export function registerSettingsSecrets(settings: Settings): void {
  const secrets = [
    settings.apiToken,
    settings.driverToken,
    settings.worker.dashboardToken,
    settings.worker.webhookSecret,
    ...urlSecrets(settings.storeUrl),
    ...urlSecrets(settings.redisUrl),
  ];
  for (const secret of secrets) processSecrets.add(secret);
}
