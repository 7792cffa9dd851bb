import { request } from 'undici';
import type { SimHandle } from '../../src/sim/start-sim.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely
  json: any;
}

/** One HTTP call to the simulator with undici; the body is always read. */
export async function call(
  sim: SimHandle,
  path: string,
  init: {
    method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await request(`${sim.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === 'string'
          ? init.body
          : JSON.stringify(init.body),
  });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

export async function login(sim: SimHandle, apiToken = 'dev-api-token'): Promise<string> {
  const answer = await call(sim, '/auth/login-api-token', { method: 'POST', body: { apiToken } });
  if (answer.status !== 200) throw new Error(`login answered ${answer.status}`);
  return answer.json.data.items[0].access;
}

/** Follows nextCursor from the first page until hasMore is false; answers every page's data. */
// biome-ignore lint/suspicious/noExplicitAny: pages are read loosely
export async function pageThrough(sim: SimHandle, path: string, token: string, query = ''): Promise<any[]> {
  const pages = [];
  let cursor: string | undefined;
  do {
    const params = cursor ? `cursor=${encodeURIComponent(cursor)}` : query;
    const answer = await call(sim, `${path}?${params}`, { token });
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.text}`);
    pages.push(answer.json.data);
    cursor = answer.json.data.hasMore ? answer.json.data.nextCursor : undefined;
  } while (cursor);
  return pages;
}

export const adminHeaders = { 'x-sim-admin': 'dev-admin-token' };
