import { TmsError } from '../client/index.js';
import { describeError } from '../tms-sync-error.js';

const bodyLimit = 2000;

/** What a TMS may echo in an error answer that must never be stored: bearer tokens, JWTs. */
const secrets = [/Bearer\s+[^\s"',;]+/gi, /eyJ[\w-]{8,}(\.[\w-]*)*/g];

/**
 * A failure as a command's `last_error`: the error's one line, and the TMS's answer as it came (its
 * shape is the TMS's own: JSON or text, cut at 2000 characters), so a refused command carries the
 * server's reason. A token the TMS echoed back is replaced by `[redacted]`.
 */
export function describeFailure(error: unknown): string {
  const line = describeError(error);
  if (!(error instanceof TmsError) || error.body === undefined || error.body === '') return redacted(line);
  const body = typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
  const cut = body.length > bodyLimit ? `${body.slice(0, bodyLimit)}...` : body;
  return redacted(`${line}; the TMS answered: ${cut}`);
}

function redacted(text: string): string {
  return secrets.reduce((out, secret) => out.replace(secret, '[redacted]'), text);
}
