import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendJson } from '../services/service-deps.js';
import { type HostileMode, type HostileRule, type HostileStatus, parseHostileRule } from './hostile-rule.js';
import {
  emptyPage,
  oneItemPage,
  type PageJson,
  type PageRequest,
  pageRewrites,
  type RewriteMode,
} from './page-rewrites.js';
import { drippedBody, partialBody } from './partial-body.js';

/** Makes the next N answers of a listing hostile (`PUT /_sim/hostile`); admin routes are never touched. */
export interface HostileResponses {
  status(): HostileStatus | null;
  /** Replaces the rule in force; 422 on a bad body. */
  set(body: unknown): HostileStatus;
  /** Ends the rule in force; answers what it had done. */
  clear(): HostileStatus | null;
  install(app: FastifyInstance): void;
}

const fakeCursorPrefix = 'hostile-empty-';
const badGateway =
  '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n';

export function createHostileResponses(): HostileResponses {
  let rule: HostileStatus | null = null;
  // The endless pages carry the cycle's real maxSequence (and the endless cursor a real item), so
  // only the paging is wrong.
  let cycleMaxSequence: number | undefined;
  let endlessItem: Record<string, unknown> | undefined;
  let fakeCursors = 0;
  const hostile = new WeakMap<FastifyRequest, { mode: HostileMode; page: PageRequest }>();

  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    const url = new URL(request.url, 'http://sim');
    if (!rule || request.method !== 'GET' || url.pathname.startsWith('/_sim/')) return;
    if (!url.pathname.startsWith(rule.path)) return;
    const cursor = url.searchParams.get('cursor') ?? undefined;
    // A first page has no cursor to repeat: it passes and does not count.
    if (rule.mode === 'repeat-cursor' && cursor === undefined) return;
    if (rule.passed < rule.afterPages) {
      rule.passed++;
      return;
    }
    if (rule.served >= rule.count) return;
    rule.served++;
    if (rule.mode === 'html-502') return reply.code(502).type('text/html').send(badGateway);
    const page: PageRequest = {
      cursor,
      limit: Number(url.searchParams.get('limit') ?? 100) || 100,
      fakeCursor: () => `${fakeCursorPrefix}${++fakeCursors}`,
    };
    if (rule.mode === 'endless-empty' && cursor?.startsWith(fakeCursorPrefix)) {
      return sendJson(reply, 200, emptyPage(cycleMaxSequence, page.fakeCursor()));
    }
    if (rule.mode === 'endless-cursor' && cursor?.startsWith(fakeCursorPrefix)) {
      return sendJson(reply, 200, oneItemPage(endlessItem, cycleMaxSequence, page.fakeCursor()));
    }
    hostile.set(request, { mode: rule.mode, page });
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const marked = hostile.get(request);
    if (!marked || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    if (marked.mode === 'cut-body') return partialBody(request, reply, Buffer.from(payload), 'cut');
    if (marked.mode === 'stall-mid-body') return partialBody(request, reply, Buffer.from(payload), 'stall');
    if (marked.mode === 'slow-drip') return drippedBody(reply, Buffer.from(payload));
    if (marked.mode === 'endless-empty' || marked.mode === 'endless-cursor') {
      const { data } = JSON.parse(payload) as PageJson;
      cycleMaxSequence = data.maxSequence;
      endlessItem = data.items?.[0];
    }
    return pageRewrites[marked.mode as RewriteMode](payload, marked.page);
  };

  return {
    status: () => rule,
    set(body) {
      const parsed: HostileRule = parseHostileRule(body);
      rule = { ...parsed, passed: 0, served: 0 };
      return rule;
    },
    clear() {
      const last = rule;
      rule = null;
      return last;
    },
    install(app) {
      app.addHook('onRequest', onRequest);
      app.addHook('onSend', onSend);
    },
  };
}
