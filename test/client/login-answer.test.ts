import { afterEach, describe, expect, it } from 'vitest';
import { createTmsClient, ResponseValidationError } from '../../src/client/index.js';
import { type ScriptedServer, sendJson, startScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the login answer', () => {
  it.each(['2026-13-45T99:99:99Z', '2026-02-30T25:00:00Z'])(
    'fails as a malformed login answer, naming expiresAt, when it is %s',
    async (expiresAt) => {
      server = await startScriptedServer((request, _index, response) => {
        if (request.url.startsWith('/auth/')) {
          return sendJson(response, 200, { data: { items: [{ access: 'token', expiresAt }] } });
        }
        sendJson(response, 200, { data: { version: '1' } });
      });
      const client = createTmsClient({ baseUrl: server.url, apiToken: 'api-token' });
      const error = await client.getVersion().catch((caught: unknown) => caught);
      await client.close();
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(String(error)).toMatch(
        /POST .*\/auth\/login-api-token: the login answer does not match its schema; \/data\/items\/0\/expiresAt/,
      );
      expect((error as ResponseValidationError).retryable).toBe(false);
      expect(server.requests).toHaveLength(1);
    },
  );
});
