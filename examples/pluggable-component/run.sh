#!/usr/bin/env bash
# Runs the example pluggable component on <sockets folder>/<name>.sock (defaults: /tmp/svc-components-sockets,
# memstore). Build first with `npm run build` at the repository root. Extra arguments go to the component
# (see --help).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ ! -f "$here/dist/src/main.js" ]]; then
  echo "example component is not built: run 'npm run build' in the repository root first" >&2
  exit 1
fi
exec node "$here/dist/src/main.js" "$@"
