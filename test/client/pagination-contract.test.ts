import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CursorLoopError,
  createTmsClient,
  PaginationError,
  ResponseValidationError,
} from '../../src/client/index.js';
import {
  loginAnswer,
  type ScriptedServer,
  type SeenRequest,
  sendJson,
  startScriptedServer,
} from './support/scripted-server.js';

const invoice = (id: string, sequence: number) => ({
  id,
  number: `INV-${id}`,
  status: 'preliminary',
  clientId: 'c1',
  currency: 'EUR',
  issueDate: null,
  dueDate: null,
  reference: '',
  notes: '',
  totals: { net: 1, vat: 0, gross: 1 },
  paidAmount: 0,
  modifiedAt: '2024-01-01T00:00:00Z',
  sequence,
});

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A TMS whose listing answers the given page bodies in turn (after the login). */
async function listingServer(pages: (request: SeenRequest, index: number, response: ServerResponse) => void) {
  let listed = 0;
  server = await startScriptedServer((request, _, response) => {
    if (request.url.startsWith('/auth/')) loginAnswer(response, 'opaque-token');
    else pages(request, listed++, response);
  });
  return createTmsClient({ baseUrl: server.url, apiToken: 'api-secret', retry: { attempts: 1 } });
}

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe('paging contract', () => {
  it('stops on hasMore false and ignores a nextCursor on the last page', async () => {
    const client = await listingServer((_, index, response) =>
      sendJson(response, 200, {
        data:
          index === 0
            ? { items: [invoice('2', 9), invoice('1', 12)], nextCursor: 'c1', hasMore: true, maxSequence: 50 }
            : { items: [invoice('3', 7)], nextCursor: 'c2', hasMore: false, maxSequence: 50 },
      }),
    );
    const pages = await collect(client.listInvoices({ since: 1, limit: 2 }));
    expect(pages.map((page) => [page.cursor, page.items.length, page.hasMore, page.maxSequence])).toEqual([
      [undefined, 2, true, 50],
      ['c1', 1, false, 50],
    ]);
    expect(server!.requests.at(-1)!.url).toBe('/invoice/invoices/?since=1&limit=2&cursor=c1');
    await client.close();
  });

  it('refuses a cursor it has already followed in the same pass', async () => {
    const client = await listingServer((_, index, response) =>
      sendJson(response, 200, {
        data: { items: [invoice(String(index), index)], nextCursor: index === 0 ? 'a' : 'b', hasMore: true },
      }),
    );
    const seen: unknown[] = [];
    const pass = async () => {
      for await (const page of client.listInvoices({ cursor: 'b' })) seen.push(page.cursor);
    };
    await expect(pass()).rejects.toBeInstanceOf(CursorLoopError);
    expect(seen).toEqual(['b']);
    await client.close();
  });

  it('gives up on endless empty pages that still say hasMore', async () => {
    const client = await listingServer((_, index, response) =>
      sendJson(response, 200, { data: { nextCursor: `c${index}`, hasMore: true } }),
    );
    const error = await collect(client.listInvoices({ maxEmptyPages: 3 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationError);
    expect(String(error)).toMatch(
      /^PaginationError \[TMS_PAGINATION\] GET \/invoice\/invoices\/: 4 empty pages/,
    );
    expect(server!.requests.filter((request) => request.url.startsWith('/invoice'))).toHaveLength(4);
    await client.close();
  });

  it('fails a page that says hasMore without a nextCursor', async () => {
    const client = await listingServer((_, __, response) =>
      sendJson(response, 200, { data: { items: [], hasMore: true } }),
    );
    await expect(collect(client.listInvoices())).rejects.toBeInstanceOf(PaginationError);
    await client.close();
  });

  it.each([
    ['a body that is not JSON', '{"data": {"items": ['],
    ['a body without data', JSON.stringify({ items: [] })],
    ['items that are not an array', JSON.stringify({ data: { items: {}, hasMore: false } })],
    ['hasMore that is not a boolean', JSON.stringify({ data: { items: [], hasMore: 'no' } })],
    [
      'a maxSequence beyond 2^53',
      '{"data": {"items": [], "hasMore": false, "maxSequence": 9007199254740993}}',
    ],
  ])('fails the whole page on %s and returns nothing of it', async (_, body) => {
    const client = await listingServer((_request, _index, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    });
    const pages: unknown[] = [];
    const error = await (async () => {
      for await (const page of client.listInvoices()) pages.push(page);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(pages).toEqual([]);
    await client.close();
  });

  it('passes records through as received, whatever their fields, and fails a page holding an item that is not an object', async () => {
    const odd = { ...invoice('2', 3), totals: { net: 'ten', vat: null }, extra: [1, { deep: true }] };
    let answer: unknown[] = [{ ...invoice('1', 4), extra: true }, odd];
    const client = await listingServer((_, __, response) =>
      sendJson(response, 200, { data: { items: answer, hasMore: false } }),
    );
    const [page] = await collect(client.listInvoices());
    expect(page!.items).toEqual(answer);
    answer = [invoice('1', 4), 'not a record'];
    const failing = collect(client.listInvoices());
    await expect(failing).rejects.toBeInstanceOf(ResponseValidationError);
    await expect(failing).rejects.toThrow('item 2 of 2 is a string, not a record object');
    await client.close();
  });

  it('never assumes the sequence field name, sequence order or full pages', async () => {
    const renamed = ({ sequence, ...rest }: ReturnType<typeof invoice>) => ({ ...rest, seqNo: sequence });
    const client = await listingServer((_, index, response) =>
      sendJson(response, 200, {
        data:
          index === 0
            ? { items: [renamed(invoice('1', 90))], nextCursor: 'x', hasMore: true, maxSequence: 95 }
            : { items: [renamed(invoice('2', 5))], hasMore: false, maxSequence: 95 },
      }),
    );
    const pages = await collect(client.listInvoices({ since: 1, limit: 1000 }));
    expect(pages.flatMap((page) => page.items.map((item) => item.id))).toEqual(['1', '2']);
    expect(pages.at(-1)!.maxSequence).toBe(95);
    await client.close();
  });

  it('percent-encodes path parameters of child listings', async () => {
    const client = await listingServer((_, __, response) =>
      sendJson(response, 200, { data: { hasMore: false } }),
    );
    await collect(client.listPayments({ invoiceId: 'a/b #?%' }));
    expect(server!.requests.at(-1)!.url).toBe('/invoice/invoices/a%2Fb%20%23%3F%25/payments');
    await client.close();
  });

  it('sends the request for the next page before it hands this page to the caller', async () => {
    const client = await listingServer((_, index, response) =>
      sendJson(response, 200, {
        data:
          index === 0
            ? { items: [invoice('1', 9)], nextCursor: 'c1', hasMore: true, maxSequence: 50 }
            : { items: [invoice('2', 7)], hasMore: false, maxSequence: 50 },
      }),
    );
    // undici tells when it writes a request to the socket: the caller's work on a page overlaps
    // the next page's round trip only if that request has left by the time the page arrives.
    const written: string[] = [];
    const onWrite = (message: unknown) => {
      const { path } = (message as { request: { path: string } }).request;
      if (path.startsWith('/invoice/')) written.push(path);
    };
    subscribe('undici:client:sendHeaders', onWrite);
    try {
      const writtenWhenHanded: string[][] = [];
      for await (const page of client.listInvoices({ since: 1, limit: 1 })) {
        if (page.hasMore) writtenWhenHanded.push([...written]);
      }
      expect(writtenWhenHanded).toEqual([
        [expect.stringMatching(/since=1&limit=1$/), expect.stringMatching(/cursor=c1$/)],
      ]);
    } finally {
      unsubscribe('undici:client:sendHeaders', onWrite);
      await client.close();
    }
  });
});
