import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ApiToken } from '../auth/api-token.js';
import type { TokenIssuer } from '../auth/token-issuer.js';
import type { SimData } from '../data/sim-data.js';
import type { DriverSim } from '../driver/driver-sim.js';
import type { FaultInjector } from '../faults/fault-injector.js';
import type { HostileResponses } from '../hostile/hostile-responses.js';
import { registerHostileRoutes } from '../hostile/hostile-routes.js';
import { createPicker, hash32, randomTags } from '../seeded-random.js';
import { createBodyChecker } from '../services/body-checker.js';
import { sendJson } from '../services/service-deps.js';
import { SimHttpError } from '../sim-http-error.js';
import type { SimOptions } from '../sim-options.js';
import { applyRandomChanges } from './random-changes.js';
import { clearOverrides, setOverride } from './record-overrides.js';
import type { RequestCounter } from './request-counter.js';
import { buildTruth } from './sim-truth.js';

const ChangesRequest = Type.Object({
  count: Type.Integer({ minimum: 0, maximum: 100_000 }),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffffffff })),
  kinds: Type.Optional(Type.Array(Type.String())),
  streams: Type.Optional(Type.Array(Type.String())),
});

const TokenRequest = Type.Object({
  type: Type.Union([Type.Literal('apitoken'), Type.Literal('driver')]),
  operatorId: Type.Optional(Type.String({ minLength: 1 })),
  scopes: Type.Optional(Type.Array(Type.String())),
  audience: Type.Optional(Type.Array(Type.String())),
  ttlSeconds: Type.Optional(Type.Integer()),
});

const ApiTokenRequest = Type.Object({ apiToken: Type.String({ minLength: 1 }) });

const checkChanges = createBodyChecker(ChangesRequest);
const checkToken = createBodyChecker(TokenRequest);
const checkApiToken = createBodyChecker(ApiTokenRequest);

export interface AdminDeps {
  readonly options: SimOptions;
  readonly data: SimData;
  readonly driver: DriverSim;
  readonly faults: FaultInjector;
  readonly hostile: HostileResponses;
  readonly issuer: TokenIssuer;
  readonly apiToken: ApiToken;
  readonly requests: RequestCounter;
  /** Seeds the changes of requests that bring no seed. */
  readonly random: () => number;
}

/** The admin routes of docs/simulator.md, behind the `x-sim-admin` header; they never fault. */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.register(async (admin) => {
    admin.addHook('onRequest', async (request) => {
      if (request.headers['x-sim-admin'] !== deps.options.adminToken) {
        throw new SimHttpError(401, 'admin_only', 'send the header x-sim-admin: <admin token>');
      }
    });
    admin.post('/_sim/changes', async (request) => {
      const body = checkChanges(request.body);
      const seed = body.seed ?? Math.floor(deps.random() * 0xffffffff);
      const pick = createPicker(hash32(seed, randomTags.changes));
      return { changes: applyRandomChanges(deps, { count: body.count, pick, filter: body }) };
    });
    admin.get('/_sim/faults', async () => ({ rates: deps.faults.rates(), injected: deps.faults.injected() }));
    admin.put('/_sim/faults', async (request) => {
      const body = request.body as { profile?: unknown } | undefined;
      return { rates: deps.faults.set((body?.profile ?? body) as never) };
    });
    registerHostileRoutes(admin, deps.hostile);
    admin.get('/_sim/truth', async (request, reply) => {
      const { stream } = request.query as { stream?: string };
      return sendJson(reply, 200, buildTruth(deps.data, deps.driver, stream));
    });
    admin.get('/_sim/requests', async () => ({
      requests: deps.requests.counts(),
      perSecond: deps.requests.perSecond(),
    }));
    admin.put('/_sim/overrides', async (request) => setOverride(deps.data, request.body));
    admin.delete('/_sim/overrides', async () => ({ cleared: clearOverrides(deps.data) }));
    admin.post('/_sim/tokens', async (request) => {
      const body = checkToken(request.body);
      const driver = body.type === 'driver';
      const claims = {
        typ: body.type,
        aud: body.audience ?? [driver ? 'driver' : 'external'],
        scopes: body.scopes ?? (driver ? [] : ['invoice', 'client']),
        ...(body.operatorId === undefined ? {} : { operator: body.operatorId }),
      };
      const format = driver ? 'jwt' : deps.options.variant.tokenFormat;
      return deps.issuer.issue(claims, body.ttlSeconds ?? deps.options.tokenTtlSeconds, format);
    });
    admin.put('/_sim/api-token', async (request) => {
      deps.apiToken.rotate(checkApiToken(request.body).apiToken);
      return { revokedAt: new Date(deps.options.now()).toISOString() };
    });
  });
}
