#!/usr/bin/env bash
# The README's commands (`npm start`, `npm run dev`, `npm test`) run through here, so that every step
# (install, build, the apps, the tests) runs on Node.js >= 22.12: see ensure-node.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=ensure-node.sh
source scripts/ensure-node.sh
export TURBO_TELEMETRY_DISABLED=1

# Under `npm start` and `npm run dev` stdout is the launcher's: pretty lines on a terminal, otherwise one JSON event
# per line (decision F12). What comes before the launcher (install, build) then goes to stderr, so that a reader of
# stdout gets events only.
launcher_stdout=1
if { [ "${1:-}" = start ] || [ "${1:-}" = dev ]; } && [ ! -t 1 ]; then
  exec 3>&1 1>&2
  launcher_stdout=3
fi

command -v pnpm >/dev/null 2>&1 || npm install -g pnpm@10.34.9 >/dev/null
if [ ! -f node_modules/.modules.yaml ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  pnpm install --frozen-lockfile
fi

case "${1:-}" in
  start)
    # A line per package as its build starts (turbo's hash-only logs, reworded), then turbo's summary.
    echo "== building the packages and the apps (a minute or two on a fresh checkout)"
    if ! pnpm turbo run build --output-logs=hash-only 2>&1 | awk '
      /:build: cache miss/ { sub(/:build: cache miss.*/, ""); print "   building " $0; fflush(); next }
      /:build: cache hit/ { sub(/:build: cache hit.*/, ""); print "   " $0 " is up to date"; fflush(); next }
      { print; fflush() }'; then
      # hash-only hides the compiler's messages: build again to show them (what did build is cached).
      pnpm turbo run build --output-logs=errors-only
      exit 1
    fi
    exec node infra/local/start.mjs >&"$launcher_stdout" 3>&-
    ;;
  dev) exec node infra/local/start.mjs --dev >&"$launcher_stdout" 3>&- ;;
  test)
    rm -f apps/*/test-results*.json packages/*/test-results*.json infra/local/test-results.json bench/test-results.json
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
