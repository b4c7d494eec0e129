# syntax=docker/dockerfile:1
# Nestegg billing worker image.
# Build from the repository root (infra/compose.yaml does this):
#   docker build -f infra/docker/billing-worker.Dockerfile -t nestegg/billing-worker .
# Run:  docker run -e DATABASE_URL=postgres://… nestegg/billing-worker   (liveness: GET :3001/healthz)

# Same Debian (glibc) image for build and runtime, as in api.Dockerfile.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- base: Node + pnpm (installed with npm; corepack is not used) -------------------------------------
FROM ${NODE_IMAGE} AS base
ENV TURBO_TELEMETRY_DISABLED=1 \
    CI=true
RUN npm i -g pnpm@10.34.9 && npm cache clean --force
WORKDIR /repo

# ---- build: install the workspace, build the worker and its workspace packages, deploy the worker -----
FROM base AS build
# The whole workspace is installed (one lockfile), which builds argon2 for the api too: node-gyp toolchain.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*

# Manifests first, so the dependency layer is reused until one of them changes.
# List every workspace project of pnpm-workspace.yaml (apps/*, packages/*, infra/local, bench): pnpm does not fail on
# a lockfile importer whose package.json is missing, it silently skips that project's dependencies.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY apps/api/package.json apps/api/
COPY apps/billing-worker/package.json apps/billing-worker/
COPY packages/config/package.json packages/config/
COPY packages/contract/package.json packages/contract/
COPY packages/db/package.json packages/db/
COPY packages/domain/package.json packages/domain/
COPY packages/membership/package.json packages/membership/
COPY packages/openapi/package.json packages/openapi/
COPY packages/statements/package.json packages/statements/
COPY packages/telemetry/package.json packages/telemetry/
COPY packages/testing/package.json packages/testing/
COPY infra/local/package.json infra/local/
COPY bench/package.json bench/
# pnpm applies patches/ (package.json pnpm.patchedDependencies) while installing; the lockfile records their hashes.
COPY patches/ patches/
RUN --mount=type=cache,id=nestegg-pnpm-store,target=/root/.local/share/pnpm/store \
    pnpm install --frozen-lockfile

COPY . .
# Safety net, "Already up to date" in about 2 s: installs what a manifest missing from the list above skipped.
RUN --mount=type=cache,id=nestegg-pnpm-store,target=/root/.local/share/pnpm/store \
    pnpm install --frozen-lockfile
RUN pnpm turbo run build --filter=@nestegg/billing-worker...
# pnpm 10 deploys without injected workspace packages only with --legacy (see api.Dockerfile).
RUN --mount=type=cache,id=nestegg-pnpm-store,target=/root/.local/share/pnpm/store \
    pnpm --filter=@nestegg/billing-worker deploy --prod --legacy /out
# The deployed modules must carry the postgres.js and drizzle patches (patches/; decisions FD1 and P27): fail the build if not.
RUN grep -q 'Patched (nestegg' /out/node_modules/postgres/src/connection.js \
 && grep -q 'Patched (nestegg' /out/node_modules/drizzle-orm/utils.js

# ---- runtime ------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# Health and metrics on every interface, for probes and Prometheus from outside the container (decision I7).
ENV NODE_ENV=production \
    WORKER_HOST=0.0.0.0
WORKDIR /app
# Owned by root and read-only for the `node` user that runs the process.
COPY --from=build /out/package.json ./package.json
COPY --from=build /out/node_modules ./node_modules
COPY --from=build /out/dist ./dist
USER node
EXPOSE 3001
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.WORKER_HEALTH_PORT||3001)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
