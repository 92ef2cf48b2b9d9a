# Settings shared by up.sh, down.sh, images.sh and run.sh of the local cluster (sourced, not run).
# Everything the cluster writes lives under CLUSTER_DIR and CLUSTER_RUN; binaries and base images are cached under
# CLUSTER_CACHE, outside the repository, so a second `up` builds nothing.

CLUSTER_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CLUSTER_DIR="${SVC_CLUSTER_DIR:-/var/lib/svc-cluster}"
CLUSTER_RUN="${SVC_CLUSTER_RUN:-/run/svc-cluster}"
CLUSTER_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/svc"

NODE_NAME="svc-node"
# Pod and Service ranges of this cluster. They exist only in the network namespaces the cluster makes on this
# machine (the bridge, pods, kube-proxy's rules); nothing leaves it.
POD_CIDR="10.88.0.0/16"
SERVICE_CIDR="10.96.0.0/16"
KUBERNETES_SERVICE_IP="10.96.0.1"
DNS_SERVICE_IP="10.96.0.10"
CLUSTER_DOMAIN="cluster.local"
CNI_BRIDGE="svc-cni0"
ETCD_PORT=23790
ETCD_PEER_PORT=23800
APISERVER_PORT=6443

CONTAINERD_SOCK="${CLUSTER_RUN}/containerd/containerd.sock"
PKI_DIR="${CLUSTER_DIR}/pki"
LOG_DIR="${CLUSTER_DIR}/logs"
PID_DIR="${CLUSTER_DIR}/pids"
KUBECONFIG_ADMIN="${CLUSTER_DIR}/admin.kubeconfig"
KUBE_BIN="$(bash "${CLUSTER_ROOT}/scripts/ensure-kube.sh" --print-dir)"
KUBECTL_BIN="${KUBE_BIN}/kubectl"
COREDNS_VERSION="v1.15.0"
COREDNS_BIN="${CLUSTER_CACHE}/coredns-${COREDNS_VERSION}/coredns"
PAUSE_IMAGE="registry.k8s.io/pause:3.10"
COREDNS_IMAGE="registry.k8s.io/coredns/coredns:${COREDNS_VERSION}"

# The machine's own address on its first interface with a global IPv4 address. The API server must advertise a
# non-loopback address: the `kubernetes` Endpoints object refuses loopback, and pods reach the API through it.
host_ip() {
  ip -4 -o addr show scope global | awk '{ split($4, a, "/"); print a[1]; exit }'
}

cluster_log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
cluster_fail() { cluster_log "FAIL: $*"; exit 1; }

kubectl_admin() { "$KUBECTL_BIN" --kubeconfig "$KUBECONFIG_ADMIN" "$@"; }
ctr_k8s() { ctr --address "$CONTAINERD_SOCK" --namespace k8s.io "$@"; }

# Why this machine cannot run the cluster, or nothing when it can: root, runc able to start a container, cgroups.
cluster_unsupported() {
  if [ "$(id -u)" -ne 0 ]; then echo "not root (the node needs mounts, namespaces, cgroups and iptables)"; return; fi
  if [ ! -d /sys/fs/cgroup ] || [ -z "$(ls /sys/fs/cgroup 2>/dev/null)" ]; then echo "no cgroup file system at /sys/fs/cgroup"; return; fi
  if ! unshare --mount --uts --ipc --net --pid --fork true 2>/dev/null; then echo "cannot create namespaces (unshare failed)"; return; fi
}
