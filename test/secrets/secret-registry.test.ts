import { describe, expect, it } from 'vitest';
import { createSecretRegistry } from '../../src/secrets/secret-registry.js';

describe('the secret registry', () => {
  it('blanks a secret as given, URL-encoded and JSON-escaped, wherever it stands in the text', () => {
    const secrets = createSecretRegistry();
    secrets.add('p@ss"word/1');
    const text = 'a p@ss"word/1 b p%40ss%22word%2F1 c {"x":"p@ss\\"word/1"}';
    expect(secrets.redact(text)).toBe('a [redacted] b [redacted] c {"x":"[redacted]"}');
  });

  it('blanks the longer of two overlapping secrets whole', () => {
    const secrets = createSecretRegistry();
    secrets.add('token');
    secrets.add('token-and-more');
    expect(secrets.redact('x token-and-more y token')).toBe('x [redacted] y [redacted]');
  });

  it('ignores values too short to blank without wrecking every line', () => {
    const secrets = createSecretRegistry({ minLength: 4 });
    secrets.add('abc');
    secrets.add(undefined);
    secrets.add('');
    expect(secrets.redact('abc abcd')).toBe('abc abcd');
  });

  it('keeps only the most recent rotating secrets', () => {
    const secrets = createSecretRegistry({ rotatingKept: 2 });
    for (const token of ['access-1', 'access-2', 'access-3']) secrets.addRotating(token);
    expect(secrets.redact('access-1 access-2 access-3')).toBe('access-1 [redacted] [redacted]');
  });
});
