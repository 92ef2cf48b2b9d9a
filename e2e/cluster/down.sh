#!/usr/bin/env bash
# Removes everything up.sh made: containers and pod sandboxes, the processes (by the PIDs up.sh recorded), mounts,
# network namespaces, the CNI bridge, iptables rules and sysctls (restored as recorded before the first up),
# cgroups, and the cluster's data. Cached binaries and images stay (see env.sh). Safe to run twice.
set -uo pipefail
# shellcheck source=env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

[ -d "$CLUSTER_DIR" ] || [ -d "$CLUSTER_RUN" ] || { cluster_log "no cluster to remove"; exit 0; }

stop() {
  local name="$1" pid i
  [ -f "${PID_DIR}/${name}" ] || return 0
  pid="$(cat "${PID_DIR}/${name}")"
  kill "$pid" 2>/dev/null || { rm -f "${PID_DIR}/${name}"; return 0; }
  for ((i = 0; i < 40; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "${PID_DIR}/${name}"
}

# The pods' processes die with their tasks; containerd must still run to kill them.
remove_containers() {
  ctr --address "$CONTAINERD_SOCK" version >/dev/null 2>&1 || return 0
  local id
  for id in $(ctr_k8s tasks ls -q 2>/dev/null); do ctr_k8s tasks kill -s SIGKILL "$id" >/dev/null 2>&1; done
  sleep 1
  for id in $(ctr_k8s tasks ls -q 2>/dev/null); do ctr_k8s tasks delete -f "$id" >/dev/null 2>&1; done
  for id in $(ctr_k8s containers ls -q 2>/dev/null); do ctr_k8s containers delete "$id" >/dev/null 2>&1; done
}

# Shims of this containerd only (they name its socket on their command line).
stop_shims() {
  local pid
  for pid in $(pgrep -f -- "-address ${CONTAINERD_SOCK}" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
}

unmount_all() {
  local dir mnt
  for dir in "$CLUSTER_DIR" "$CLUSTER_RUN"; do
    # Deepest first, so that a mount is never busy because of one inside it.
    awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts | sort -r | while read -r mnt; do
      umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
    done
  done
}

# restore_rules TOOL SAVED: the rules as recorded before the first up. A table the record lacks was empty then, so
# it is emptied (the kubelet's KUBE-FIREWALL and canary chains, kube-proxy's leftovers, CNI's chains).
restore_rules() {
  local tool="$1" saved="$2" table
  [ -f "$saved" ] || return 0
  for table in filter nat mangle raw; do
    grep -q "^\*${table}\$" "$saved" && continue
    "$tool" -t "$table" -F 2>/dev/null
    "$tool" -t "$table" -X 2>/dev/null
  done
  [ -s "$saved" ] && { "${tool}-restore" <"$saved" 2>/dev/null || cluster_log "could not restore ${tool} rules from ${saved}"; }
}

remove_network() {
  local ns
  # The sandboxes' network namespaces (containerd names them cni-<uuid>); deleting one removes its veth.
  for ns in $(ip netns list 2>/dev/null | awk '$1 ~ /^cni-/ { print $1 }'); do ip netns delete "$ns" 2>/dev/null; done
  ip link delete "$CNI_BRIDGE" 2>/dev/null || true
  [ -x "${KUBE_BIN}/kube-proxy" ] && "${KUBE_BIN}/kube-proxy" --cleanup >/dev/null 2>&1
  local state="${CLUSTER_DIR}/host-state"
  restore_rules iptables "${state}/iptables"
  restore_rules ip6tables "${state}/ip6tables"
  if [ -s "${state}/sysctl.values" ]; then
    local keys=(net.ipv4.ip_forward vm.overcommit_memory kernel.panic kernel.panic_on_oops net.ipv4.conf.all.route_localnet) i=0 value
    while read -r value; do sysctl -q -w "${keys[$i]}=${value}" 2>/dev/null; i=$((i + 1)); done <"${state}/sysctl.values"
  fi
}

# The kubelet's cgroups (kubepods and the pods below it), in every hierarchy, deepest first.
remove_cgroups() {
  local dir
  find /sys/fs/cgroup -depth -type d -name 'kubepods*' 2>/dev/null | while read -r dir; do
    find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
}

cluster_log "stopping the local cluster"
stop kube-proxy
stop kubelet
remove_containers
stop kube-scheduler
stop kube-controller-manager
stop kube-apiserver
stop etcd
stop containerd
stop_shims
unmount_all
remove_network
remove_cgroups
find /var/log/containers -maxdepth 1 -type l -lname "${CLUSTER_DIR}/*" -delete 2>/dev/null
rm -rf "$CLUSTER_RUN" "$CLUSTER_DIR"
cluster_log "local cluster removed"
