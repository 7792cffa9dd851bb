import { describe, expect, it } from 'vitest';
import { redactUrl, urlSecrets } from '../../src/secrets/url-credentials.js';

describe('credentials in a connection URL', () => {
  const cases = [
    ['postgres://user:Secret1@host:5432/db', 'postgres://user:***@host:5432/db', ['Secret1']],
    ['postgres://user:pw@Secret2@host/db', 'postgres://user:***@host/db', ['pw@Secret2']],
    ['postgres://user:pw/Secret3@host/db', 'postgres://user:***@host/db', ['pw/Secret3']],
    [
      'postgres://host/db?password=Secret4&sslmode=require',
      'postgres://host/db?password=***&sslmode=require',
      ['Secret4'],
    ],
    ['postgresql://u@host/db?sslpassword=Secret5', 'postgresql://u@host/db?sslpassword=***', ['Secret5']],
    [
      'postgres://u:p%40ss%2FSecret6@host/db',
      'postgres://u:***@host/db',
      ['p%40ss%2FSecret6', 'p@ss/Secret6'],
    ],
    ['redis://:Secret7@127.0.0.1:6379', 'redis://:***@127.0.0.1:6379', ['Secret7']],
    ['rediss://default:Secret8@cache:6380/0', 'rediss://default:***@cache:6380/0', ['Secret8']],
    ['redis://cache:6379?password=Secret9', 'redis://cache:6379?password=***', ['Secret9']],
    ['postgres://user@host/db', 'postgres://user@host/db', []],
    ['sqlite:./data/tms.sqlite', 'sqlite:./data/tms.sqlite', []],
  ] as const;

  it.each(cases)('%s shows as %s and yields its secrets', (url, shown, secrets) => {
    expect(redactUrl(url)).toBe(shown);
    expect(urlSecrets(url)).toEqual(secrets);
  });
});
