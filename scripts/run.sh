#!/usr/bin/env bash
# The README's commands (`npm start`, `npm run dev`, `npm test`) run through here, so that every step
# (install, build, the apps, the tests) runs on Node.js >= 22.12: see ensure-node.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=ensure-node.sh
source scripts/ensure-node.sh
export TURBO_TELEMETRY_DISABLED=1

command -v pnpm >/dev/null 2>&1 || npm install -g pnpm@10.34.9 >/dev/null
if [ ! -f node_modules/.modules.yaml ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  pnpm install --frozen-lockfile
fi

case "${1:-}" in
  start)
    pnpm turbo run build --output-logs=errors-only
    exec node infra/local/start.mjs
    ;;
  dev) exec node infra/local/start.mjs --dev ;;
  test)
    rm -f apps/*/test-results.json packages/*/test-results.json infra/local/test-results.json bench/test-results.json
    exec pnpm turbo run test --concurrency=2 --continue
    ;;
  admin)
    shift
    if [ -z "${DATABASE_URL:-}" ] && [ -z "${DATABASE_URL_FILE:-}" ]; then
      DATABASE_URL="$(node infra/local/embedded-url.mjs)"
      export DATABASE_URL
      echo "[nestegg] DATABASE_URL is not set: using the embedded PostgreSQL of npm start ($DATABASE_URL), which runs while npm start does" >&2
    fi
    exec pnpm --silent --filter @nestegg/api admin "$@"
    ;;
  *)
    echo "usage: scripts/run.sh start|dev|test|admin <command>" >&2
    exit 2
    ;;
esac
