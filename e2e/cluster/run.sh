#!/usr/bin/env bash
# svc in the local single-node cluster: brings the cluster up (up.sh), builds and loads the images (images.sh),
# then runs every check of checks.sh — what e2e/kind checks, then what only a running cluster shows — each on a
# line with its time, ending with `N passed, N failed`. The cluster is removed afterwards (down.sh) unless
# KEEP_CLUSTER=1. Exit status: non-zero when a check failed or the cluster could not be made.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "${here}/env.sh"

finish() {
  local status=$?
  if [[ $status -ne 0 ]]; then
    echo "--- diagnostics"
    kubectl_admin get pods -A -o wide 2>/dev/null || true
    kubectl_admin get events -A --sort-by=.lastTimestamp 2>/dev/null | tail -n 25 || true
  fi
  if [[ "${KEEP_CLUSTER:-}" == 1 ]]; then
    echo "cluster kept: KUBECONFIG=${KUBECONFIG_ADMIN} KUBECTL=${KUBECTL_BIN}; remove it with bash e2e/cluster/down.sh"
  else
    bash "${here}/down.sh"
  fi
  exit $status
}
trap finish EXIT

started=$(date +%s)
bash "${here}/up.sh" >/dev/null || exit 1
cluster_log "cluster up in $(( $(date +%s) - started ))s"
bash "${here}/images.sh" svc || exit 1

KUBECTL="${KUBECTL_BIN} --kubeconfig ${KUBECONFIG_ADMIN}"
HELM="$(command -v helm || echo "$(go env GOPATH)/bin/helm") --kubeconfig ${KUBECONFIG_ADMIN}"
CHECKS_ROOT="$CLUSTER_ROOT"
CHECKS_TAG="$(node -p "require('${CLUSTER_ROOT}/package.json').version")"
# shellcheck source=checks.sh
source "${here}/checks.sh"

echo "checks of svc in the local cluster (Kubernetes $("$KUBECTL_BIN" version --client -o json | node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).clientVersion.gitVersion)'), node ${NODE_NAME})"
run_shared_checks
# The example as it runs, before the checks that restart, kill and uninstall.
kubectl_admin get pods -A -o wide
run_cluster_checks
checks_summary
