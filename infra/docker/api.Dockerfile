# syntax=docker/dockerfile:1
# Nestegg api image (also runs the one-off database migration job).
# Build from the repository root (infra/compose.yaml does this):
#   docker build -f infra/docker/api.Dockerfile -t nestegg/api .
# Run:      docker run -e DATABASE_URL=postgres://… -p 3000:3000 nestegg/api
# Migrate:  docker run --rm -e DATABASE_URL=postgres://… nestegg/api node node_modules/@nestegg/db/dist/cli/migrate.js
# Admin:    docker run --rm -it -e DATABASE_URL=postgres://… nestegg/api node dist/cli/admin.js promote <email>

# Build and runtime use the same Debian (glibc) image: native modules (argon2, sharp) must match its libc.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- base: Node + pnpm (installed with npm; corepack is not used) -------------------------------------
FROM ${NODE_IMAGE} AS base
ENV TURBO_TELEMETRY_DISABLED=1 \
    CI=true
RUN npm i -g pnpm@10.34.9 && npm cache clean --force
WORKDIR /repo

# ---- build: install the workspace, build the api and its workspace packages, deploy the api ----------
FROM base AS build
# argon2 and sharp ship prebuilt binaries for linux x64/arm64; the node-gyp toolchain is the fallback for
# platforms without one.
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
RUN pnpm turbo run build --filter=@nestegg/api...
# pnpm 10 deploys without injected workspace packages only with --legacy. The result is a self-contained
# folder: package.json, dist/ (workspace code bundled in) and the production node_modules, which include
# @nestegg/db with its dist/ (the migrate CLI) and migrations/ (its package.json "files").
RUN --mount=type=cache,id=nestegg-pnpm-store,target=/root/.local/share/pnpm/store \
    pnpm --filter=@nestegg/api deploy --prod --legacy /out
# The deployed modules must carry the postgres.js and drizzle patches (patches/; decisions FD1 and P27): fail the build if not.
RUN grep -q 'Patched (nestegg' /out/node_modules/postgres/src/connection.js \
 && grep -q 'Patched (nestegg' /out/node_modules/drizzle-orm/utils.js

# ---- runtime ------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# Memory per replica (docs/deployment.md; decisions DL21, DL22): jemalloc instead of glibc's malloc, whose
# per-thread arenas kept what argon2 (19 MiB a hash) and libvips freed; one path on amd64 and arm64.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libjemalloc2 \
    && rm -rf /var/lib/apt/lists/* \
    && ln -s "/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2" /usr/local/lib/libjemalloc.so.2
# Traffic reaches a container on its own interface, not its loopback: listen on every interface (the apps' default,
# outside an image, is 127.0.0.1; decision I7). The metrics listener follows HOST unless METRICS_HOST is set.
# LD_PRELOAD puts jemalloc under every process of the container. NODE_OPTIONS caps V8's young generation at
# 2 × 16 MB (Node 24's default lets it grow to 2 × 64 MB, which a replica under load fills and keeps) and its old
# generation at 256 MB, so V8 collects it long before a 512 MiB container limit (its default sizes it from the
# memory it finds: 4 GB of heap on a 24 GB machine); the restore and statement-import workers keep their own limits.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    NESTEGG_MIGRATIONS_DIR=/app/node_modules/@nestegg/db/migrations \
    LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 \
    NODE_OPTIONS="--max-semi-space-size=16 --max-old-space-size=256"
# Fail the build if the preload does not take (the loader only warns and goes on with glibc's malloc).
RUN node -e "process.exit(require('fs').readFileSync('/proc/self/maps', 'utf8').includes('libjemalloc') ? 0 : 1)"
WORKDIR /app
# Owned by root and read-only for the `node` user that runs the process.
COPY --from=build /out/package.json ./package.json
COPY --from=build /out/node_modules ./node_modules
COPY --from=build /out/dist ./dist
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/server.js"]
