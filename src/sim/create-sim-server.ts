import { type FastifyInstance, fastify } from 'fastify';
import { registerAdminRoutes } from './admin/admin-routes.js';
import { createRequestCounter } from './admin/request-counter.js';
import { createAccessGuard } from './auth/access-guard.js';
import { type ApiToken, createApiToken } from './auth/api-token.js';
import { createRateLimiter } from './auth/rate-limiter.js';
import { createTokenIssuer } from './auth/token-issuer.js';
import { createSimContext } from './create-sim-context.js';
import { createSimData } from './data/sim-data.js';
import { createDriverSim } from './driver/create-driver-sim.js';
import { installErrorHandler } from './errors/error-handler.js';
import { createFaultInjector } from './faults/fault-injector.js';
import { createHostileResponses } from './hostile/hostile-responses.js';
import { createCursorCodec } from './listing/cursor-codec.js';
import { createListingEngine } from './listing/listing-engine.js';
import { removeDotSegments } from './remove-dot-segments.js';
import { resolveSimOptions, type SimOptionsInput } from './resolve-sim-options.js';
import { createRandom, hash32, randomTags } from './seeded-random.js';
import { registerClientRoutes } from './services/client-routes.js';
import { registerInvoiceRoutes } from './services/invoice-routes.js';
import { registerLoginRoute } from './services/login-route.js';
import type { SimOptions } from './sim-options.js';

/**
 * Builds the simulator as a fastify app without listening: data, auth, listings, faults, the
 * REST services, the Driver API and the admin routes. Options are resolved (and checked) here;
 * `apiToken` is the one the login accepts now (`PUT /_sim/api-token` rotates it).
 */
export function createSimServer(input: SimOptionsInput | SimOptions = {}): {
  app: FastifyInstance;
  options: SimOptions;
  apiToken: ApiToken;
} {
  const options = resolveSimOptions(input);
  const app = fastify({
    logger: false,
    forceCloseConnections: true,
    bodyLimit: 10 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    // As a proxy in front of a TMS would: a raw `..` in a path names another resource.
    rewriteUrl: (request) => removeDotSegments(request.url ?? '/'),
  });
  app.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );
  installErrorHandler(app, options.variant.errorBody);
  const requests = createRequestCounter({ loginPath: options.loginPath });
  requests.install(app);

  const data = createSimData(options);
  const issuer = createTokenIssuer(options.now);
  const apiToken = createApiToken(options.apiToken, issuer);
  const guard = createAccessGuard({
    issuer,
    limiter: createRateLimiter(options.rateLimitPerSecond, options.now),
  });
  const faults = createFaultInjector(options.faults, createRandom(hash32(options.seed, randomTags.faults)));
  faults.install(app);
  const hostile = createHostileResponses();
  hostile.install(app);
  const driver = createDriverSim(createSimContext(options, guard));
  const listings = createListingEngine({
    codec: createCursorCodec(),
    counter: data.counter,
    sequenceField: options.variant.sequenceField,
    cursorOnLastPage: options.variant.cursorOnLastPage,
  });

  registerLoginRoute(app, options, issuer, apiToken);
  registerInvoiceRoutes(app, { data, guard, listings, variant: options.variant });
  registerClientRoutes(app, { data, guard, listings, variant: options.variant });
  driver.register(app);
  const random = createRandom(hash32(options.seed, randomTags.changes));
  registerAdminRoutes(app, { options, data, driver, faults, hostile, issuer, apiToken, random, requests });
  return { app, options, apiToken };
}
