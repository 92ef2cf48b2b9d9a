#!/usr/bin/env bash
# Runs the state and workflow benches against svcd and daprd side by side, interleaved round by round (daprd, then
# svcd, in every round), on the same resources: a Redis state store that is also the actor (workflow) store, and the
# example pluggable component's in-memory store behind one socket both sidecars use. daprd runs with its placement
# and scheduler, whose CPU the workflow bench counts as daprd's. The state bench also measures, in every round, the
# floor: Node's bare HTTP server answering the same requests with no store (bench/src/http-floor.ts). Prints each
# bench's tables; compare within a round.
#
#   BENCH_DAPRD_DIR=<folder with daprd, placement, scheduler> bash bench/beside-daprd.sh [state|pluggable|workflow ...]
#
# daprd is never fetched or built by this repository: build it from Dapr's sources (docs/performance.md says how).
# BENCH_ROUNDS (default 2); BENCH_SCALE and BENCH_WORKLOADS reach workflow.js. A sidecar that does not turn healthy prints every process's last log lines.
set -euo pipefail
cd "$(dirname "$0")/.."

DAPR="${BENCH_DAPRD_DIR:?BENCH_DAPRD_DIR must name a folder holding daprd, placement and scheduler}"
ROUNDS="${BENCH_ROUNDS:-2}"
BENCHES=("$@")
[ ${#BENCHES[@]} -gt 0 ] || BENCHES=(state pluggable workflow)

WORK="$(mktemp -d /tmp/beside-daprd-XXXXXX)"
SOCKETS="$WORK/sockets"
RESOURCES="$WORK/resources"
mkdir -p "$SOCKETS" "$RESOURCES" "$WORK/etcd"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

cat > "$RESOURCES/statestore.yaml" <<'YAML'
apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: statestore
spec:
  type: state.redis
  version: v1
  metadata:
    - name: redisHost
      value: 127.0.0.1:6379
    - name: actorStateStore
      value: "true"
YAML
cat > "$RESOURCES/memstore.yaml" <<'YAML'
apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: memstore
spec:
  type: state.memstore
  version: v1
YAML

# Waits until a URL answers 2xx (a sidecar's health endpoint).
wait_healthy() {
  for _ in $(seq 1 300); do
    if curl -fs -o /dev/null "$1"; then return 0; fi
    sleep 0.1
  done
  echo "not healthy: $1; the logs:" >&2
  tail -n 20 "$WORK"/*.log >&2
  exit 1
}

node examples/pluggable-component/dist/src/main.js --name memstore --package dapr.proto.components.v1 --sockets-folder "$SOCKETS" > "$WORK/component.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do [ -S "$SOCKETS/memstore.sock" ] && break; sleep 0.1; done

"$DAPR/placement" --port 56005 --healthz-port 58081 --metrics-port 59091 > "$WORK/placement.log" 2>&1 &
PLACEMENT=$!
PIDS+=($PLACEMENT)
"$DAPR/scheduler" --port 56006 --healthz-port 58082 --metrics-port 59092 --etcd-data-dir "$WORK/etcd" \
  --etcd-client-port 52379 --etcd-initial-cluster "dapr-scheduler-server-0=http://localhost:52380" > "$WORK/scheduler.log" 2>&1 &
SCHEDULER=$!
PIDS+=($SCHEDULER)
wait_healthy http://127.0.0.1:58081/healthz
wait_healthy http://127.0.0.1:58082/healthz

DAPR_COMPONENTS_SOCKETS_FOLDER="$SOCKETS" "$DAPR/daprd" --app-id bench --dapr-http-port 53500 --dapr-grpc-port 55001 \
  --metrics-port 59093 --resources-path "$RESOURCES" --placement-host-address 127.0.0.1:56005 \
  --scheduler-host-address 127.0.0.1:56006 --log-level warn > "$WORK/daprd.log" 2>&1 &
DAPRD=$!
PIDS+=($DAPRD)
SVC_COMPONENTS_SOCKETS_FOLDER="$SOCKETS" node runtime/bin/svcd.js --app-id bench --http-port 43500 --grpc-port 45001 \
  --metrics-port 49090 --resources-path "$RESOURCES" --data-dir "$WORK/svcd-data" --log-level warn > "$WORK/svcd.log" 2>&1 &
SVCD=$!
PIDS+=($SVCD)
node bench/dist/src/http-floor.js 43600 > "$WORK/floor.log" 2>&1 &
FLOOR=$!
PIDS+=($FLOOR)
wait_healthy http://127.0.0.1:53500/v1.0/healthz
wait_healthy http://127.0.0.1:43500/v1.0/healthz

run_bench() { # <bench> <sidecar name>
  local url pid grpc
  case "$2" in
    daprd) url=http://127.0.0.1:53500; grpc=127.0.0.1:55001; pid="$DAPRD,$PLACEMENT,$SCHEDULER" ;;
    svcd) url=http://127.0.0.1:43500; grpc=127.0.0.1:45001; pid="$SVCD" ;;
    floor) url=http://127.0.0.1:43600; pid="$FLOOR" ;;
  esac
  echo "## $1, $2"
  case "$1" in
    state) BENCH_SIDECAR_URL=$url BENCH_SIDECAR_PID=${pid%%,*} BENCH_SIDECAR_STORE=statestore node bench/dist/src/state.js ;;
    pluggable) BENCH_SIDECAR_URL=$url BENCH_SIDECAR_PID=${pid%%,*} BENCH_SIDECAR_STORE=memstore node bench/dist/src/state.js ;;
    workflow) BENCH_SIDECAR_GRPC=$grpc BENCH_SIDECAR_PID=$pid node bench/dist/src/workflow.js ;;
    *) echo "unknown bench $1 (state, pluggable, workflow)" >&2; exit 2 ;;
  esac
}

for round in $(seq 1 "$ROUNDS"); do
  for bench in "${BENCHES[@]}"; do
    echo "# round $round"
    run_bench "$bench" daprd
    run_bench "$bench" svcd
    [ "$bench" != state ] || run_bench state floor
  done
done
