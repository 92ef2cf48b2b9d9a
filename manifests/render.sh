#!/usr/bin/env bash
# Renders charts/svc with default values into manifests/svc.yaml (release "svc", namespace svc-system, CRD
# included). The chart test fails when this file is stale: re-run after changing the chart. `--stdout` prints
# the rendering instead of writing the file.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
helm_bin="${HELM:-$(command -v helm || echo "$(go env GOPATH)/bin/helm")}"
render() {
  echo "# Rendered from charts/svc by manifests/render.sh (helm template svc charts/svc --namespace svc-system --include-crds)."
  echo "# Install: kubectl apply -f manifests/svc.yaml (it creates the namespace svc-system). The images svc/svcd and"
  echo "# svc/svc-injector are published nowhere: build and push them, then point these manifests at your registry"
  echo "# (README, section Kubernetes)."
  printf -- '---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: svc-system\n'
  "$helm_bin" template svc "$here/../charts/svc" --namespace svc-system --include-crds
}
if [[ "${1:-}" == "--stdout" ]]; then
  render
else
  render > "$here/svc.yaml"
  echo "wrote $here/svc.yaml"
fi
