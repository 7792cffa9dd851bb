# tms-sync: one image for the worker, the one-shot commands and the simulator (docs/deploy.md).
# Two stages: the build (every dependency, the TypeScript build), then the production
# dependencies and dist/ alone, run by a user that owns nothing but its data folder.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3's install compiles the addon where its prebuilt binary cannot be fetched.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The locked tree; the package's own `prepare` (the build) waits for the sources below.
RUN npm ci --no-audit --no-fund --ignore-scripts \
  && npm rebuild better-sqlite3 msgpackr-extract esbuild
# tsconfig.json: esbuild takes its compiler options (class fields, module kind) from it too.
COPY tsconfig.json ./
COPY scripts ./scripts
COPY bin ./bin
COPY config ./config
COPY jobs ./jobs
COPY schemas ./schemas
COPY src ./src
RUN npm run build && npm prune --omit=dev && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# Owned by root and read-only to the user that runs: the image runs with a read-only root file
# system (docker-compose.yml: read_only, a tmpfs at /tmp, a volume at /app/data).
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]

# The ops server listens on all interfaces inside the container (the worker logs a warning that
# /healthz and /metrics need no token); publish the port only where it is needed. The store's
# default, sqlite:./data/tms.sqlite, is the volume; STORE_URL or STORE_URL_FILE names another.
ENV OPS_HOST=0.0.0.0 OPS_PORT=9464
EXPOSE 9464

# Readiness, not liveness: /readyz is red while the worker cannot do its job (the TMS refuses the
# token, the breaker is open, the store or Redis is gone); /healthz only says the process answers.
# Only the worker serves it: the simulator's service (docker-compose.yml) overrides this check.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.OPS_PORT || 9464) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# SIGTERM reaches node directly (exec form): the worker stops after the page in hand.
ENTRYPOINT ["node", "dist/tms-sync.js"]
CMD ["worker"]
