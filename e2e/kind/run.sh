#!/usr/bin/env bash
# The kind suite, for machines with Docker: a kind cluster with the images built by Docker from docker/Dockerfile,
# then the checks of e2e/cluster/checks.sh — the same checks e2e/cluster/run.sh runs on the local node that
# `make test` builds (see e2e/cluster/README.md). Needs docker, kind, kubectl and helm (see README.md).
#   KEEP_CLUSTER=1  keep the cluster afterwards (default: delete it)
#   CLUSTER=name    kind cluster name (default svc-e2e)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cluster="${CLUSTER:-svc-e2e}"
tag="$(node -p "require('$root/package.json').version")"
helm_bin="${HELM:-$(command -v helm || echo "$(go env GOPATH 2>/dev/null)/bin/helm")}"
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

for tool in docker kind kubectl; do command -v "$tool" >/dev/null || fail "$tool is required (see e2e/kind/README.md)"; done
[[ -x "$helm_bin" ]] || fail "helm is required: bash scripts/ensure-tools.sh"
docker info >/dev/null 2>&1 || fail "the Docker daemon is not reachable"

cleanup() {
  local status=$?
  if [[ "${KEEP_CLUSTER:-}" != "1" ]]; then kind delete cluster --name "$cluster" >/dev/null 2>&1 || true; fi
  exit $status
}
trap cleanup EXIT

kind get clusters | grep -qx "$cluster" || kind create cluster --name "$cluster" --wait 180s || exit 1
kubectl config use-context "kind-$cluster" >/dev/null

for target in svcd svc-injector example-pluggable-component example-workflow-app; do
  docker build -q -f "$root/docker/Dockerfile" --target "$target" -t "svc/$target:$tag" "$root" >/dev/null || exit 1
  kind load docker-image --name "$cluster" "svc/$target:$tag" || exit 1
done
docker pull -q redis:7-alpine >/dev/null && kind load docker-image --name "$cluster" redis:7-alpine || exit 1

KUBECTL="kubectl --context kind-$cluster"
HELM="$helm_bin --kube-context kind-$cluster"
CHECKS_ROOT="$root"
CHECKS_TAG="$tag"
# shellcheck source=../cluster/checks.sh
source "$root/e2e/cluster/checks.sh"
run_shared_checks
run_cluster_checks
checks_summary
