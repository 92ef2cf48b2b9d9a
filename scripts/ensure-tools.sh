#!/usr/bin/env bash
# Installs the command-line tools the test suite drives (nothing yet beyond Node and the local services).
set -euo pipefail

# helm (chart lint/template tests): built from its Go module once, cached in $(go env GOPATH)/bin.
HELM_VERSION=v3.19.5
if ! command -v helm >/dev/null 2>&1 && [ ! -x "$(go env GOPATH)/bin/helm" ]; then
  echo "ensure-tools: installing helm ${HELM_VERSION} with go install (a few minutes, once)"
  go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
fi

# etcd (Debian) and kube-apiserver (built from the Kubernetes Go module, cached) for the admission e2e test.
bash "$(dirname "$0")/ensure-kube-apiserver.sh" >/dev/null
