#!/usr/bin/env bash
# Installs pnpm (when missing) and the workspace dependencies from the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
if ! command -v pnpm >/dev/null 2>&1; then
  npm install -g pnpm@10.34.9 >/dev/null
fi
if [ ! -f node_modules/.modules.yaml ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  pnpm install --frozen-lockfile
fi
