/**
 * The secrets this process holds, and the one function that blanks them in any text we print or
 * store. Names of fields (pino's `redact`) cannot catch a secret inside free text, such as a TMS
 * error message that repeats the request body; matching the values themselves can.
 */
export interface SecretRegistry {
  /** A secret for the life of the process (a configured token or password). Short or empty values are ignored. */
  add(value: string | undefined): void;
  /** A secret that is replaced over time (an access token): only the most recent ones are kept. */
  addRotating(value: string | undefined): void;
  /** `text` with every known secret (as given, URL-encoded or JSON-escaped) replaced by `[redacted]`. */
  redact(text: string): string;
}

export interface SecretRegistryOptions {
  /**
   * Shorter values are not matched: blanking every "ab" in every line would make logs unreadable
   * and hide nothing a guess would not find. @default 4
   */
  readonly minLength?: number;
  /** Rotating secrets kept (a token renewed every few minutes must not grow the set forever). @default 8 */
  readonly rotatingKept?: number;
}

export const censor = '[redacted]';

export function createSecretRegistry(options: SecretRegistryOptions = {}): SecretRegistry {
  const minLength = options.minLength ?? 4;
  const rotatingKept = options.rotatingKept ?? 8;
  const fixed = new Set<string>();
  const rotating: string[] = [];
  // Longest first: a secret that contains another is blanked whole.
  let forms: string[] = [];

  const refresh = () => {
    const all = new Set([...fixed, ...rotating].flatMap(formsOf));
    forms = [...all].filter((form) => form.length >= minLength).sort((a, b) => b.length - a.length);
  };
  const usable = (value: string | undefined): value is string =>
    value !== undefined && value.length >= minLength;

  return {
    add(value) {
      if (!usable(value) || fixed.has(value)) return;
      fixed.add(value);
      refresh();
    },
    addRotating(value) {
      if (!usable(value) || rotating.includes(value)) return;
      rotating.push(value);
      if (rotating.length > rotatingKept) rotating.shift();
      refresh();
    },
    redact(text) {
      let out = text;
      for (const form of forms) if (out.includes(form)) out = out.split(form).join(censor);
      return out;
    },
  };
}

/** How a secret may appear in text: as given, percent-encoded (a URL), escaped (a JSON string). */
function formsOf(value: string): string[] {
  return [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)];
}

/**
 * The process's registry: settings add the configured secrets when they are loaded
 * (config/load-settings.ts), the TMS client its tokens and every access token it obtains.
 */
export const processSecrets: SecretRegistry = createSecretRegistry();

/** `text` with every secret of this process blanked. */
export const redactSecrets = (text: string): string => processSecrets.redact(text);
