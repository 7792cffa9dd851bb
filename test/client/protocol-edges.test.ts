import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthError,
  createTmsClient,
  InvalidArgumentError,
  NetworkError,
  ResponseValidationError,
} from '../../src/client/index.js';
import { captureLogger } from './support/capture-logger.js';
import {
  loginAnswer,
  type ScriptedServer,
  sendJson,
  startScriptedServer,
} from './support/scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const version = { version: '7.1', apiVersion: '2.0.70' };
const fast = { attempts: 3, minDelayMs: 1, maxDelayMs: 5 };

describe('protocol edges', () => {
  it('waits for a Retry-After given as an HTTP date before repeating a 429', async () => {
    server = await startScriptedServer((request, index, response) => {
      if (request.url.startsWith('/auth/')) return loginAnswer(response, 't');
      if (index === 1)
        return sendJson(
          response,
          429,
          { message: 'slow down' },
          { 'retry-after': new Date(Date.now() + 1500).toUTCString() },
        );
      sendJson(response, 200, { data: version });
    });
    const client = createTmsClient({ baseUrl: server.url, apiToken: 'a', retry: fast });
    const started = Date.now();
    await expect(client.getVersion()).resolves.toEqual(version);
    // An HTTP date has whole seconds: the wait is between 0.5 and 1.5 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    await client.close();
  });

  it('logs in again once on a 401 and fails with AuthError when the fresh token is refused too', async () => {
    server = await startScriptedServer((request, _, response) => {
      if (request.url.startsWith('/auth/')) return loginAnswer(response, `token-${Math.random()}`);
      sendJson(response, 401, { error: { message: 'expired' } });
    });
    const client = createTmsClient({ baseUrl: server.url, apiToken: 'a', retry: fast });
    const error = await client.getVersion().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe('TMS_AUTH_REJECTED');
    expect(server.requests.map((request) => request.url.split('?')[0])).toEqual([
      '/auth/login-api-token',
      '/driver-api/settings/version',
      '/auth/login-api-token',
      '/driver-api/settings/version',
    ]);
    await client.close();
  });

  it('keeps tokens out of logs, error messages and toString', async () => {
    server = await startScriptedServer((request, _, response) => {
      if (request.url.startsWith('/auth/')) return loginAnswer(response, 'ACCESS-SECRET');
      sendJson(response, 503, { error: { message: 'down' } });
    });
    const { lines, logger } = captureLogger();
    const client = createTmsClient({ baseUrl: server.url, apiToken: 'API-SECRET', logger, retry: fast });
    const error = await client.getVersion().catch((e: unknown) => e);
    const everything = [
      ...lines,
      String(error),
      (error as Error).message,
      JSON.stringify(error),
      (error as Error).stack,
    ].join('\n');
    expect(everything).not.toMatch(/ACCESS-SECRET|API-SECRET/);
    expect(server.requests[1]!.headers.authorization).toBe('Bearer ACCESS-SECRET');
    expect(String(error)).toBe(
      `HttpStatusError [TMS_SERVER_ERROR] GET ${new URL(server.url).origin}/driver-api/settings/version -> 503: the server answered 503: down (3 attempts)`,
    );
    await client.close();
  });

  it('retries a POST whose connection was refused: it never reached the server', async () => {
    const closed = await startScriptedServer(() => {});
    const url = closed.url;
    await closed.close();
    const client = createTmsClient({ baseUrl: url, driverToken: 'd', retry: fast });
    const error = await client
      .addTrackingPosition({ latitude: 1, longitude: 2, at: '2024-01-01T00:00:00Z' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({
      code: 'TMS_NETWORK',
      mayHaveReachedServer: false,
      attempts: 3,
      causeCode: 'ECONNREFUSED',
    });
    await client.close();
  });

  it('checks the Driver API list envelope: code 200 and itemCount equal to the items', async () => {
    const answers = [
      { data: { code: 200, items: [{ id: 't1', licensePlate: 'X' }], itemCount: 2 } },
      { data: { code: 500, items: [], itemCount: 0 } },
      { data: { items: [] } },
    ];
    server = await startScriptedServer((_, index, response) => sendJson(response, 200, answers[index]));
    const client = createTmsClient({ baseUrl: server.url, driverToken: 'd' });
    for (const message of [/itemCount|counts 2/, /code 500/, /envelope/]) {
      await expect(client.getTrailers()).rejects.toThrow(message);
    }
    await client.close();
  });

  it('accepts a single resource as {data: record} and as {data: {items: [record]}}', async () => {
    const answers = [
      { data: version },
      { data: { items: [version] } },
      { data: { code: 200, items: [version], itemCount: 1 } },
    ];
    server = await startScriptedServer((_, index, response) => sendJson(response, 200, answers[index]));
    const client = createTmsClient({ baseUrl: server.url, driverToken: 'd' });
    for (const _ of answers) await expect(client.getVersion()).resolves.toEqual(version);
    await client.close();
  });

  it('answers a single resource whatever its fields, and refuses one that is not an object', async () => {
    const answers = [{ data: { version: 7, apiVersion: { major: 2 } } }, { data: ['2.0.70'] }];
    server = await startScriptedServer((_, index, response) => sendJson(response, 200, answers[index]));
    const client = createTmsClient({ baseUrl: server.url, driverToken: 'd' });
    await expect(client.getVersion()).resolves.toEqual(answers[0]!.data);
    const error = (await client.getVersion().catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toContain('the record is an array, not an object');
    await client.close();
  });

  it('sends the driver token and operatorId to the Driver API, the access token elsewhere', async () => {
    server = await startScriptedServer((request, _, response) => {
      if (request.url.includes('/auth/')) return loginAnswer(response, 'access');
      sendJson(response, 200, { data: { code: 200, items: [], itemCount: 0 } });
    });
    const client = createTmsClient({ baseUrl: `${server.url}/tms`, apiToken: 'a' });
    await client.getTasks({ operatorId: 'op 1', ids: ['t1', 't2'] });
    expect(server.requests.map((request) => [request.url, request.headers.authorization])).toEqual([
      ['/tms/auth/login-api-token', undefined],
      ['/tms/driver-api/tasks/?ids=t1%2Ct2&operatorId=op+1', 'Bearer access'],
    ]);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ apiToken: 'a' });
    await client.close();
  });

  it('names the offending option when the options are invalid', () => {
    expect(() => createTmsClient({ baseUrl: 'ftp://x' })).toThrow(InvalidArgumentError);
    expect(() => createTmsClient({ baseUrl: 'http://x', retry: { attempts: 0 } })).toThrow(/retry\.attempts/);
    expect(() => createTmsClient({ baseUrl: 'http://u:p@x' })).toThrow(/credentials/);
  });
});
