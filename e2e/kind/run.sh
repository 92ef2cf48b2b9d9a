#!/usr/bin/env bash
# The kind suite: a real cluster with the svc chart installed, the example app injected with svcd and the
# example pluggable component, then the state API through that component and a workflow run.
# Needs docker, kind, kubectl and helm (see README.md). Exits non-zero at the first failed check.
#   KEEP_CLUSTER=1  keep the cluster afterwards (default: delete it)
#   CLUSTER=name    kind cluster name (default svc-e2e)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cluster="${CLUSTER:-svc-e2e}"
tag="$(node -p "require('$root/package.json').version")"
helm_bin="${HELM:-$(command -v helm || echo "$(go env GOPATH 2>/dev/null)/bin/helm")}"
step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

for tool in docker kind kubectl; do command -v "$tool" >/dev/null || fail "$tool is required (see e2e/kind/README.md)"; done
[[ -x "$helm_bin" ]] || fail "helm is required: bash scripts/ensure-tools.sh"
docker info >/dev/null 2>&1 || fail "the Docker daemon is not reachable"

cleanup() {
  local status=$?
  if [[ $status -ne 0 ]]; then
    echo "--- diagnostics"
    kubectl get pods -A -o wide || true
    kubectl -n shop describe pods -l app=orders | tail -n 60 || true
    kubectl -n svc-system logs -l app.kubernetes.io/name=svc-injector --tail=50 || true
    kubectl -n shop logs -l app=orders --all-containers --tail=50 || true
  fi
  [[ -n "${pf_pid:-}" ]] && kill "$pf_pid" 2>/dev/null || true
  if [[ "${KEEP_CLUSTER:-}" != "1" ]]; then kind delete cluster --name "$cluster" >/dev/null 2>&1 || true; fi
  exit $status
}
trap cleanup EXIT

step "cluster $cluster"
kind get clusters | grep -qx "$cluster" || kind create cluster --name "$cluster" --wait 180s
kubectl config use-context "kind-$cluster" >/dev/null

step "images (tag $tag)"
for target in svcd svc-injector example-pluggable-component example-workflow-app; do
  docker build -q -f "$root/docker/Dockerfile" --target "$target" -t "svc/$target:$tag" "$root"
  kind load docker-image --name "$cluster" "svc/$target:$tag"
done

step "chart"
"$helm_bin" upgrade --install svc "$root/charts/svc" --namespace svc-system --create-namespace --wait --timeout 180s
# The injector patches the webhook caBundle after generating its CA; until then the API server cannot call it.
for _ in $(seq 1 60); do
  ca="$(kubectl get mutatingwebhookconfiguration svc-injector -o jsonpath='{.webhooks[0].clientConfig.caBundle}')"
  [[ -n "$ca" ]] && break
  sleep 2
done
[[ -n "$ca" ]] || fail "the injector did not set the webhook caBundle"
kubectl -n svc-system get secret svc-injector-tls >/dev/null || fail "no TLS secret"

step "example app (3 replicas on the Redis actor store)"
kubectl apply -f "$root/manifests/examples/"
kubectl -n shop rollout status deployment/redis --timeout 180s
kubectl -n shop rollout status deployment/orders --timeout 240s
[[ "$(kubectl -n shop get deployment orders -o jsonpath='{.status.readyReplicas}')" == "3" ]] || fail "not 3 ready replicas of orders"
pod="$(kubectl -n shop get pods -l app=orders -o jsonpath='{.items[0].metadata.name}')"
containers="$(kubectl -n shop get pod "$pod" -o jsonpath='{.spec.containers[*].name}')"
[[ "$containers" == "worker memstore svcd" ]] || fail "containers are '$containers', expected 'worker memstore svcd'"
[[ "$(kubectl -n shop get pod "$pod" -o jsonpath='{.metadata.labels.svc\.io/sidecar-injected}')" == "true" ]] || fail "no injected label"
volumes="$(kubectl -n shop get pod "$pod" -o jsonpath='{.spec.volumes[*].name}')"
[[ "$volumes" == *svc-components-sockets* ]] || fail "no socket volume: $volumes"

step "state API through the pluggable component"
kubectl -n shop port-forward "pod/$pod" 13500:3500 >/dev/null 2>&1 &
pf_pid=$!
for _ in $(seq 1 30); do curl -sf -o /dev/null http://127.0.0.1:13500/v1.0/healthz && break; sleep 1; done
curl -sf http://127.0.0.1:13500/v1.0/metadata | grep -q '"statestore"' || fail "statestore missing from /v1.0/metadata"
status="$(curl -s -o /dev/null -w '%{http_code}' -X POST http://127.0.0.1:13500/v1.0/state/statestore \
  -H 'content-type: application/json' -d '[{"key":"kind-check","value":{"ok":true}}]')"
[[ "$status" == "204" ]] || fail "save state answered $status"
value="$(curl -sf http://127.0.0.1:13500/v1.0/state/statestore/kind-check)"
[[ "$value" == '{"ok":true}' ]] || fail "get state answered '$value'"
echo "state saved and read back through state.memstore: $value"

step "one logical actor host: every replica sees the 3 replicas and the 64 partitions are shared"
meta="$(curl -sf http://127.0.0.1:13500/v1.0/metadata)"
node -e '
  const m = JSON.parse(process.argv[1]).actorRuntime;
  if (m.placement !== "multi-host") throw new Error("placement is " + m.placement);
  if (m.peers.length !== 3) throw new Error(m.peers.length + " peers");
  const owned = m.peers.reduce((n, p) => n + p.partitions, 0);
  if (owned !== 64) throw new Error(owned + " partitions owned");
  console.log("replicas:", m.peers.map((p) => p.address + " (" + p.partitions + " partitions, " + p.workers + " workers)").join(", "));
' "$meta" || fail "placement is not shared by 3 replicas: $meta"

step "workflow run"
out="$(kubectl -n shop exec "$pod" -c worker -- node dist/src/place-order.js 5 0)"
echo "$out"
[[ "$out" == *'"status":"COMPLETED"'* || "$out" == *'"status":1'* ]] || fail "the order workflow did not complete"

step "scoping warning"
kubectl apply -f - <<'YAML'
apiVersion: svc.io/v1alpha1
kind: Component
metadata:
  name: unscoped
  namespace: shop
  annotations:
    svc.io/component-container: '{"name":"unscoped","image":"svc/example-pluggable-component:0.1.0"}'
spec:
  type: state.unscoped
  version: v1
YAML
warn="$(kubectl -n shop run scoping-check --image=busybox --restart=Never --dry-run=server \
  --annotations=svc.io/enabled=true --annotations=svc.io/app-id=checker --annotations=svc.io/inject-pluggable-components=true \
  -o name 2>&1 || true)"
kubectl -n shop delete component unscoped >/dev/null
[[ "$warn" == *'component "unscoped" is not injected'* ]] || fail "no scoping warning: $warn"

printf '\nkind suite: all checks passed\n'
