#!/usr/bin/env bash
# A single-node Kubernetes cluster from upstream binaries on this machine: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, containerd + runc, kubelet, kube-proxy, the CNI bridge and CoreDNS.
# Idempotent: what already runs is kept. Binaries and images are built once and cached (see env.sh); down.sh
# removes everything this script made. The last two lines are `KUBECONFIG=<path>` and `KUBECTL=<path>`.
set -euo pipefail
# shellcheck source=env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

why="$(cluster_unsupported)"
[ -z "$why" ] || cluster_fail "this machine cannot run the cluster: ${why}"

apt_install() {
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  fi
}

ensure_packages() {
  local missing=() pair
  for pair in containerd:containerd runc:runc /usr/lib/cni/bridge:containernetworking-plugins etcd:etcd-server \
    iptables:iptables conntrack:conntrack buildah:buildah debootstrap:debootstrap openssl:openssl gcc:gcc; do
    if [[ "${pair%%:*}" == /* ]]; then [ -e "${pair%%:*}" ] && continue; else command -v "${pair%%:*}" >/dev/null 2>&1 && continue; fi
    missing+=("${pair#*:}")
  done
  # gcc -static needs the static C library, which the libc6-dev package holds.
  [ -e /usr/lib/x86_64-linux-gnu/libc.a ] || [ -e /usr/lib/aarch64-linux-gnu/libc.a ] || missing+=(libc6-dev)
  if [ "${#missing[@]}" -gt 0 ]; then
    cluster_log "installing from Debian: ${missing[*]}"
    apt_install "${missing[@]}"
  fi
}

running() { [ -f "${PID_DIR}/$1" ] && kill -0 "$(cat "${PID_DIR}/$1")" 2>/dev/null; }

# start NAME COMMAND...: runs a component in its own session, its output in LOG_DIR/NAME.log, once.
start() {
  local name="$1"
  shift
  running "$name" && return
  setsid "$@" >>"${LOG_DIR}/${name}.log" 2>&1 < /dev/null &
  echo $! >"${PID_DIR}/${name}"
  cluster_log "started ${name} (pid $!)"
}

# wait_for WHAT SECONDS COMMAND...: retries COMMAND every half second.
wait_for() {
  local what="$1" seconds="$2" i
  shift 2
  for ((i = 0; i < seconds * 2; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  cluster_fail "${what} not ready after ${seconds}s (logs in ${LOG_DIR})"
}

# The host settings the node changes, recorded once before the first change so that down.sh restores them.
record_host_state() {
  local state="${CLUSTER_DIR}/host-state"
  [ -d "$state" ] && return
  mkdir -p "$state"
  sysctl -n net.ipv4.ip_forward vm.overcommit_memory kernel.panic kernel.panic_on_oops \
    net.ipv4.conf.all.route_localnet >"${state}/sysctl.values" 2>/dev/null || true
  iptables-save >"${state}/iptables" 2>/dev/null || true
  ip6tables-save >"${state}/ip6tables" 2>/dev/null || true
}

# issue NAME CN [O] [SANS]: a key and a certificate signed by the cluster CA.
issue() {
  local name="$1" cn="$2" org="${3:-}" sans="${4:-}" subj ext
  [ -f "${PKI_DIR}/${name}.crt" ] && return
  subj="/CN=${cn}"; [ -n "$org" ] && subj="/O=${org}${subj}"
  ext="${PKI_DIR}/${name}.ext"
  { echo "basicConstraints=CA:FALSE"; echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=serverAuth,clientAuth"; [ -n "$sans" ] && echo "subjectAltName=${sans}"; } >"$ext"
  openssl ecparam -name prime256v1 -genkey -noout -out "${PKI_DIR}/${name}.key" 2>/dev/null
  openssl req -new -key "${PKI_DIR}/${name}.key" -subj "$subj" -out "${PKI_DIR}/${name}.csr" 2>/dev/null
  openssl x509 -req -in "${PKI_DIR}/${name}.csr" -CA "${PKI_DIR}/ca.crt" -CAkey "${PKI_DIR}/ca.key" \
    -CAcreateserial -days 365 -extfile "$ext" -out "${PKI_DIR}/${name}.crt" 2>/dev/null
  rm -f "${PKI_DIR}/${name}.csr" "$ext"
}

# kubeconfig NAME: a kubeconfig for the identity of certificate NAME.
kubeconfig() {
  local name="$1" server="https://${HOST_IP}:${APISERVER_PORT}"
  cat >"${CLUSTER_DIR}/${name}.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: svc-local
    cluster: { server: "${server}", certificate-authority: "${PKI_DIR}/ca.crt" }
users:
  - name: ${name}
    user: { client-certificate: "${PKI_DIR}/${name}.crt", client-key: "${PKI_DIR}/${name}.key" }
contexts:
  - name: svc-local
    context: { cluster: svc-local, user: ${name} }
current-context: svc-local
EOF
}

make_pki() {
  mkdir -p "$PKI_DIR"
  if [ ! -f "${PKI_DIR}/ca.crt" ]; then
    openssl ecparam -name prime256v1 -genkey -noout -out "${PKI_DIR}/ca.key" 2>/dev/null
    openssl req -x509 -new -key "${PKI_DIR}/ca.key" -subj "/CN=svc-local-cluster-ca" -days 365 \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
      -out "${PKI_DIR}/ca.crt" 2>/dev/null
    openssl genrsa -out "${PKI_DIR}/sa.key" 2048 2>/dev/null
    openssl rsa -in "${PKI_DIR}/sa.key" -pubout -out "${PKI_DIR}/sa.pub" 2>/dev/null
  fi
  issue apiserver kube-apiserver "" "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.${CLUSTER_DOMAIN},DNS:localhost,IP:${KUBERNETES_SERVICE_IP},IP:${HOST_IP},IP:127.0.0.1"
  issue apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
  issue admin svc-cluster-admin system:masters
  issue controller-manager system:kube-controller-manager
  issue scheduler system:kube-scheduler
  issue kubelet "system:node:${NODE_NAME}" system:nodes
  issue kube-proxy system:kube-proxy
  local name
  for name in admin controller-manager scheduler kubelet kube-proxy; do kubeconfig "$name"; done
}

start_containerd() {
  local dir="${CLUSTER_DIR}/containerd"
  mkdir -p "$dir" "${CLUSTER_RUN}/containerd" "${CLUSTER_DIR}/cni/net.d" "${CLUSTER_DIR}/opt"
  # restrict_oom_score_adj: runc cannot lower a container's oom_score_adj where the capability bounding set lacks
  # CAP_SYS_RESOURCE (as in this VM), and fails every sandbox otherwise.
  cat >"${dir}/config.toml" <<EOF
version = 2
root = "${dir}/root"
state = "${CLUSTER_RUN}/containerd/state"
[grpc]
  address = "${CONTAINERD_SOCK}"
[plugins."io.containerd.internal.v1.opt"]
  path = "${CLUSTER_DIR}/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${CLUSTER_DIR}/cni/net.d"
EOF
  start containerd containerd --config "${dir}/config.toml"
  wait_for containerd 30 ctr --address "$CONTAINERD_SOCK" version
}

write_cni_config() {
  cat >"${CLUSTER_DIR}/cni/net.d/10-svc-pods.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "svc-pods",
  "plugins": [
    { "type": "bridge", "bridge": "${CNI_BRIDGE}", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "${POD_CIDR}" }]], "routes": [{ "dst": "0.0.0.0/0" }],
                "dataDir": "${CLUSTER_DIR}/cni/ipam" } },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
EOF
}

start_etcd() {
  start etcd etcd --name svc-local --data-dir "${CLUSTER_DIR}/etcd" \
    --listen-client-urls "http://127.0.0.1:${ETCD_PORT}" --advertise-client-urls "http://127.0.0.1:${ETCD_PORT}" \
    --listen-peer-urls "http://127.0.0.1:${ETCD_PEER_PORT}" --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PEER_PORT}" \
    --initial-cluster "svc-local=http://127.0.0.1:${ETCD_PEER_PORT}"
  wait_for etcd 30 bash -c "exec 3<>/dev/tcp/127.0.0.1/${ETCD_PORT}"
}

start_control_plane() {
  start kube-apiserver "${KUBE_BIN}/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:${ETCD_PORT}" \
    --bind-address 0.0.0.0 --secure-port "$APISERVER_PORT" --advertise-address "$HOST_IP" \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --client-ca-file "${PKI_DIR}/ca.crt" \
    --tls-cert-file "${PKI_DIR}/apiserver.crt" --tls-private-key-file "${PKI_DIR}/apiserver.key" \
    --kubelet-client-certificate "${PKI_DIR}/apiserver-kubelet-client.crt" \
    --kubelet-client-key "${PKI_DIR}/apiserver-kubelet-client.key" \
    --service-account-issuer "https://kubernetes.default.svc.${CLUSTER_DOMAIN}" \
    --service-account-key-file "${PKI_DIR}/sa.pub" --service-account-signing-key-file "${PKI_DIR}/sa.key" \
    --kubelet-preferred-address-types InternalIP,Hostname \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --allow-privileged=true
  wait_for kube-apiserver 90 kubectl_admin get --raw /readyz
  start kube-controller-manager "${KUBE_BIN}/kube-controller-manager" \
    --kubeconfig "${CLUSTER_DIR}/controller-manager.kubeconfig" \
    --authentication-kubeconfig "${CLUSTER_DIR}/controller-manager.kubeconfig" \
    --authorization-kubeconfig "${CLUSTER_DIR}/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials \
    --service-account-private-key-file "${PKI_DIR}/sa.key" --root-ca-file "${PKI_DIR}/ca.crt" \
    --cluster-signing-cert-file "${PKI_DIR}/ca.crt" --cluster-signing-key-file "${PKI_DIR}/ca.key" \
    --service-cluster-ip-range "$SERVICE_CIDR"
  start kube-scheduler "${KUBE_BIN}/kube-scheduler" --kubeconfig "${CLUSTER_DIR}/scheduler.kubeconfig" \
    --authentication-kubeconfig "${CLUSTER_DIR}/scheduler.kubeconfig" \
    --authorization-kubeconfig "${CLUSTER_DIR}/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false
}

start_node() {
  mkdir -p "${CLUSTER_DIR}/kubelet"
  # failCgroupV1: this machine has the cgroup v1 hierarchy, which kubelet 1.36 refuses unless told otherwise.
  cat >"${CLUSTER_DIR}/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://${CONTAINERD_SOCK}
clusterDNS: ["${DNS_SERVICE_IP}"]
clusterDomain: ${CLUSTER_DOMAIN}
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: "${PKI_DIR}/ca.crt" }
authorization: { mode: Webhook }
readOnlyPort: 0
failSwapOn: false
serializeImagePulls: false
podLogsDir: ${CLUSTER_DIR}/pod-logs
evictionHard: { memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%" }
EOF
  start kubelet "${KUBE_BIN}/kubelet" --config "${CLUSTER_DIR}/kubelet.yaml" \
    --kubeconfig "${CLUSTER_DIR}/kubelet.kubeconfig" --root-dir "${CLUSTER_DIR}/kubelet" \
    --hostname-override "$NODE_NAME" --node-ip "$HOST_IP"
  cat >"${CLUSTER_DIR}/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: "${CLUSTER_DIR}/kube-proxy.kubeconfig" }
mode: iptables
clusterCIDR: ${POD_CIDR}
hostnameOverride: ${NODE_NAME}
conntrack: { maxPerCore: 0 }
EOF
  start kube-proxy "${KUBE_BIN}/kube-proxy" --config "${CLUSTER_DIR}/kube-proxy.yaml"
  wait_for "node ${NODE_NAME}" 120 kubectl_admin wait --for=condition=Ready "node/${NODE_NAME}" --timeout 1s
}

start_dns() {
  sed -e "s/@DNS_SERVICE_IP@/${DNS_SERVICE_IP}/; s/@CLUSTER_DOMAIN@/${CLUSTER_DOMAIN}/; s#@COREDNS_IMAGE@#${COREDNS_IMAGE}#" \
    "${CLUSTER_ROOT}/e2e/cluster/coredns.yaml" | kubectl_admin apply -f - >/dev/null
  kubectl_admin -n kube-system rollout status deployment/coredns --timeout 120s >/dev/null \
    || cluster_fail "CoreDNS did not become ready"
}

HOST_IP="$(host_ip)"
[ -n "$HOST_IP" ] || cluster_fail "no global IPv4 address on this machine to advertise the API server on"
mkdir -p "$CLUSTER_DIR" "$LOG_DIR" "$PID_DIR"
ensure_packages
bash "${CLUSTER_ROOT}/scripts/ensure-kube.sh" >/dev/null
record_host_state
make_pki
start_containerd
write_cni_config
bash "${CLUSTER_ROOT}/e2e/cluster/images.sh" node
start_etcd
start_control_plane
start_node
start_dns
cluster_log "cluster up: node ${NODE_NAME} Ready, API server https://${HOST_IP}:${APISERVER_PORT}"
echo "KUBECONFIG=${KUBECONFIG_ADMIN}"
echo "KUBECTL=${KUBECTL_BIN}"
