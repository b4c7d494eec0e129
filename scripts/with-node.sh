#!/usr/bin/env bash
# Runs a command on Node.js >= 22.12 (see ensure-node.sh): package scripts that run TypeScript with native
# modules (argon2) go through here, so they work under `pnpm --filter …` on a machine whose Node is older.
set -euo pipefail
# shellcheck source=ensure-node.sh
source "$(dirname "${BASH_SOURCE[0]}")/ensure-node.sh"
exec "$@"
