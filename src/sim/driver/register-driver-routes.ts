import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GetProcessedMutationIds } from '../records/index.js';
import type { RecordShapes } from '../records/record-shapes.js';
import type { SimContext } from '../sim-context.js';
import { SimHttpError } from '../sim-http-error.js';
import { registerDossierRoutes } from './dossier-routes.js';
import type { DriverData, OperatorData } from './driver-data.js';
import { driverReads, type ReadRoute } from './driver-reads.js';
import { driverWrites } from './driver-writes.js';
import { processedMutations, runMutation } from './processed-mutations.js';
import type { Query } from './query-params.js';
import type { ResponseCache } from './response-cache.js';
import { validateBody } from './validate-body.js';
import type { WriteRoute } from './write-route.js';

/** Largest dossier upload; a bigger body answers 413. */
export const maxUploadBytes = 10 * 1024 * 1024;

/** What the routes share: the core's context, the data, the GET cache. */
export interface DriverRoutesContext {
  readonly ctx: SimContext;
  readonly data: DriverData;
  readonly cache: ResponseCache;
  /** The wire form of a record (variant.recordShapes). */
  readonly shapes: RecordShapes;
}

/** The list envelope of docs/api.md, Envelopes, used for every JSON answer of the Driver API. */
export const envelope = (items: readonly unknown[]) => ({
  data: { code: 200, items, itemCount: items.length },
});

function operatorOf(data: DriverData, operatorId: string): OperatorData {
  const operator = data.operators.get(operatorId);
  if (!operator)
    throw new SimHttpError(404, 'operator_not_found', `no operator ${operatorId}`, { operatorId });
  return operator;
}

const iso = (ctx: SimContext) => new Date(ctx.now()).toISOString();

function registerRead(
  app: FastifyInstance,
  { ctx, data, cache, shapes }: DriverRoutesContext,
  route: ReadRoute,
): void {
  app.get(route.path, async (request: FastifyRequest, reply) => {
    const caller = ctx.authenticateDriver(request, route.scope === 'operator');
    const input = { query: request.query as Query, params: request.params as Record<string, string> };
    const key = `${route.scope === 'operator' ? caller.operatorId : ''} ${request.url}`;
    let body = cache.get(key);
    if (body === undefined) {
      const items =
        route.scope === 'operator'
          ? route.read(data, operatorOf(data, caller.operatorId), input)
          : route.read(data, input);
      body = JSON.stringify(
        envelope(items.map((item) => shapes(route.stream, item as Record<string, unknown>))),
      );
      cache.set(key, body);
    }
    return reply
      .headers(route.headers?.(input.query) ?? {})
      .type('application/json; charset=utf-8')
      .send(body);
  });
}

function registerWrite(
  app: FastifyInstance,
  { ctx, data, cache }: DriverRoutesContext,
  route: WriteRoute,
): void {
  app.route({
    method: route.method,
    url: route.path,
    handler: async (request, reply) => {
      const caller = ctx.authenticateDriver(request, route.scope === 'operator');
      const operator = route.scope === 'operator' ? operatorOf(data, caller.operatorId) : undefined;
      const body = validateBody(route.body, request.body ?? {}) as { mutationId?: string };
      const params = request.params as Record<string, string>;
      const now = iso(ctx);
      runMutation({ data, mutationId: body.mutationId, operation: route.operation, now }, () => {
        if (route.scope === 'global') return route.apply({ data, params, body, now });
        route.apply({ data, operator: operator!, params, body, now });
        if (route.changesPlan) operator!.planningChangedAt = now;
      });
      cache.clear();
      return reply.code(200).send();
    },
  });
}

/** Every /driver-api/ route, in one plugin scope that also parses binary uploads. */
export function registerDriverRoutes(app: FastifyInstance, context: DriverRoutesContext): void {
  const { ctx, data, cache } = context;
  app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/octet-stream',
      { parseAs: 'buffer', bodyLimit: maxUploadBytes },
      (_, body, done) => done(null, body),
    );
    for (const route of driverReads) registerRead(scope, context, route);
    for (const route of driverWrites) registerWrite(scope, context, route);
    scope.post('/driver-api/get-processed-mutations/', async (request) => {
      ctx.authenticateDriver(request, false);
      const { mutationIds } = validateBody(GetProcessedMutationIds, request.body ?? {});
      return envelope(processedMutations(data, mutationIds));
    });
    registerDossierRoutes(scope, {
      data,
      authenticate: (request) => ctx.authenticateDriver(request, false),
      now: () => iso(ctx),
      changed: () => cache.clear(),
    });
  });
}
