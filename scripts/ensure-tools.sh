#!/usr/bin/env bash
# Installs the command-line tools the test suite drives besides Node and the local services: helm, etcd and
# the Kubernetes binaries, chromium, the OpenTelemetry Collector.
set -euo pipefail

# helm (chart lint/template tests): built from its Go module once, cached in $(go env GOPATH)/bin.
HELM_VERSION=v3.19.5
if ! command -v helm >/dev/null 2>&1 && [ ! -x "$(go env GOPATH)/bin/helm" ]; then
  echo "ensure-tools: installing helm ${HELM_VERSION} with go install (a few minutes, once)"
  go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
fi

# etcd (Debian) and the Kubernetes binaries (built from the Kubernetes Go module, cached): kube-apiserver for the
# admission e2e test, a whole node for the local cluster suite (e2e/cluster).
bash "$(dirname "$0")/ensure-kube.sh" >/dev/null

# Chromium (Debian) for the web UI test, driven by playwright-core with executablePath (no browser download).
if ! command -v chromium >/dev/null 2>&1; then
  echo "ensure-tools: installing Debian's chromium for the web UI test"
  if [ "$(id -u)" -ne 0 ]; then echo "ensure-tools: run as root (apt-get) or install chromium yourself" >&2; exit 1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 \
    || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null; }
fi

# The OpenTelemetry Collector (OTLP in, file exporter out) for the tracing tests: built from its Go modules once,
# cached outside the repository.
bash "$(dirname "$0")/ensure-collector.sh" >/dev/null
