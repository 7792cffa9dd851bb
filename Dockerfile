# tms-sync: one image for the worker, the one-shot commands and the simulator.
# No separate build step: bin/tms-sync.js bundles the TypeScript sources with esbuild on the first
# start after a change (done once below, at image build) and runs the bundle.
FROM node:20-slim

ENV NODE_ENV=production
WORKDIR /app

# better-sqlite3 ships prebuilt binaries for linux x64/arm64 glibc; the toolchain is only the fallback.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*

COPY package.json package-lock.json ./
# The lockfile pins the tree (every platform's optional binaries are recorded in it).
RUN npm ci --omit=dev && npm cache clean --force

COPY bin ./bin
COPY config ./config
COPY jobs ./jobs
COPY schemas ./schemas
COPY src ./src
RUN node bin/tms-sync.js --version > /dev/null

# The bundle's folder stays writable by the user that runs it: each command's first successful run
# writes V8's code cache there (README, "Development"), and later runs in the container start faster.
RUN mkdir -p /app/data && chown node:node /app/data && chown -R node:node /app/node_modules/.cache/tms-sync
USER node

# The ops server listens on all interfaces inside the container (the worker logs a warning that
# /healthz and /metrics need no token); publish the port only where it is needed.
ENV OPS_HOST=0.0.0.0 OPS_PORT=9464 STORE_URL=sqlite:/app/data/tms.sqlite
EXPOSE 9464

HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.OPS_PORT || 9464) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"

# SIGTERM reaches node directly (exec form): the worker stops after the page in hand.
ENTRYPOINT ["node", "bin/tms-sync.js"]
CMD ["worker"]
