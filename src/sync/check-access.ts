import { settingOf } from '../../config/connections/setting-name.js';
import type { Settings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import {
  AuthError,
  HttpStatusError,
  NetworkError,
  ResponseValidationError,
  type TmsClient,
} from '../client/index.js';
import type { StopSignal } from '../linked-signals.js';
import type { Logger } from '../logger.js';

/** Connection failures that say nothing listens at the URL (or its host does not exist). */
const nothingThere: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
};

/**
 * Logs in once before anything runs (until a login has succeeded; `client.checkLogin`): a refused
 * connection, an unknown host, a refused API token or a login path that is not there is a
 * configuration mistake, thrown at once as one SettingsError naming the setting and the URL (exit
 * code 2; a permanent failure in the worker). Any other failure (5xx, 429, a timeout, a reset) is
 * left to the runs, which meet it with the client's patience.
 */
export async function checkAccess(
  client: Pick<TmsClient, 'checkLogin'>,
  settings: Pick<Settings, 'baseUrl' | 'loginPath'>,
  logger: Logger,
  signal?: StopSignal,
): Promise<void> {
  try {
    await client.checkLogin(signal);
  } catch (error) {
    const mistake = configurationMistake(error, settings);
    if (mistake) throw mistake;
    if (signal?.aborted) throw error;
    logger.debug({ error: String(error) }, 'first login failed; the runs retry it with their patience');
  }
}

/** The setting a failed first login points at (a SettingsError), or undefined when it is no configuration mistake. */
export function configurationMistake(
  error: unknown,
  {
    baseUrl,
    loginPath,
    connection,
  }: Pick<Settings, 'baseUrl' | 'loginPath'> & Partial<Pick<Settings, 'connection'>>,
): SettingsError | undefined {
  const setting = (variable: string) => settingOf(connection, variable);
  const login = `POST ${baseUrl}${loginPath}`;
  if (error instanceof NetworkError && error.causeCode && nothingThere[error.causeCode]) {
    return new SettingsError(
      setting('TMS_BASE_URL'),
      `nothing answers at ${baseUrl} (${nothingThere[error.causeCode]}, ${error.causeCode}); is the TMS running there?`,
    );
  }
  if (error instanceof AuthError) {
    return new SettingsError(
      setting('TMS_API_TOKEN'),
      `the TMS at ${baseUrl} refused the API token (${login} answered ${error.status})`,
    );
  }
  if (error instanceof HttpStatusError && (error.status === 404 || error.status === 405)) {
    return new SettingsError(
      setting('TMS_LOGIN_PATH'),
      `${login} answered ${error.status}: no login operation there (check TMS_LOGIN_PATH, and that TMS_BASE_URL is the API's root)`,
    );
  }
  if (error instanceof ResponseValidationError) {
    return new SettingsError(
      setting('TMS_BASE_URL'),
      `${login} did not answer a login (${error.message}); is ${baseUrl} the TMS API's root?`,
    );
  }
  return undefined;
}
