import { request } from 'undici';
import type { DriverChange } from '../../src/sim/driver/driver-sim.js';
import { type StartSimOptions, startSim } from '../../src/sim/start-sim.js';
import type { StreamTruth } from '../../src/sim/stream-truth.js';

/** The clock the Driver API tests run on: fixed, moved by `advance`, so times and truths repeat. */
export const startOfTest = Date.parse('2025-03-12T09:30:00Z');

/** The Driver API list envelope (docs/api.md, Envelopes). */
export interface Envelope<T> {
  data: { code: number; items: T[]; itemCount: number };
}

/** `data` of an answer's JSON body, read as the list envelope. */
export const envelopeOf = <T>(answer: Answer) => (answer.json as Envelope<T>).data;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed JSON body (undefined when the body is empty or not JSON). */
  json: unknown;
}

export interface SendOptions {
  /** @default the API access token (no operator claim) */
  token?: string | null;
  headers?: Record<string, string>;
  /** A JSON body, or raw bytes sent as application/octet-stream. */
  body?: unknown;
}

/** A small simulator on port 0 with helpers for Driver API calls, the truth and the admin routes. */
export interface DriverTestSim {
  url: string;
  apiToken: string;
  call(method: string, path: string, options?: SendOptions): Promise<Answer>;
  /** A GET that must answer 200; returns `data.items`. */
  items<T = unknown>(path: string, options?: SendOptions): Promise<T[]>;
  driverToken(operatorId?: string): Promise<string>;
  truth(): Promise<StreamTruth>;
  /** Applies `count` random Driver API changes (POST /_sim/changes). */
  changes(count: number): Promise<DriverChange[]>;
  /** The simulator's clock, in epoch ms. */
  now(): number;
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function startDriverTestSim(options: StartSimOptions = {}): Promise<DriverTestSim> {
  let clock = startOfTest;
  const sim = await startSim({
    invoices: 5,
    clients: 5,
    operators: 2,
    seed: 11,
    now: () => clock,
    ...options,
  });
  const call = async (
    method: string,
    path: string,
    { token, headers = {}, body }: SendOptions = {},
  ): Promise<Answer> => {
    const bytes = Buffer.isBuffer(body);
    const response = await request(`${sim.url}${path}`, {
      method: method as 'GET',
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token ?? apiToken}` }),
        ...(body === undefined
          ? {}
          : { 'content-type': bytes ? 'application/octet-stream' : 'application/json' }),
        ...headers,
      },
      body: body === undefined ? null : bytes ? body : JSON.stringify(body),
    });
    const text = await response.body.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.statusCode, headers: response.headers, text, json };
  };
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, path, { token: null, headers: { 'x-sim-admin': sim.options.adminToken }, body });
  const login = await call('POST', sim.options.loginPath, {
    token: null,
    body: { apiToken: sim.options.apiToken },
  });
  const apiToken: string = envelopeOf<{ access: string }>(login).items[0]!.access;
  return {
    url: sim.url,
    apiToken,
    call,
    async items(path, options) {
      const answer = await call('GET', path, options);
      if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
      return envelopeOf(answer).items as never;
    },
    driverToken: async (operatorId) => {
      const answer = await admin('POST', '/_sim/tokens', { type: 'driver', operatorId });
      return (answer.json as { access: string }).access;
    },
    truth: async () => (await admin('GET', '/_sim/truth')).json as StreamTruth,
    changes: async (count) => {
      const answer = await admin('POST', '/_sim/changes', { count, streams: ['driver'] });
      return (answer.json as { changes: DriverChange[] }).changes;
    },
    now: () => clock,
    advance: (ms) => {
      clock += ms;
    },
    close: () => sim.close(),
  };
}

/** Percent-encodes a path segment (ids may hold `/`, space, `#`, `?`, `%`). */
export const seg = encodeURIComponent;
