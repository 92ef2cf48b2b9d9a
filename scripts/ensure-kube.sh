#!/usr/bin/env bash
# Installs etcd (Debian package) and builds the Kubernetes binaries the tests run — kube-apiserver for the
# admission e2e test, and the rest of a node for the local cluster of e2e/cluster — from the Kubernetes Go module.
# The binaries are cached per version outside the repository; a second run only checks them.
#
# Why a wrapper module: k8s.io/kubernetes replaces its k8s.io/* staging modules with ./staging paths that are not in
# its module zip, so `go install k8s.io/kubernetes/cmd/kube-apiserver@v1.X` is refused. The wrapper requires
# k8s.io/kubernetes and replaces every staging module with its published v0.X release, then builds the upstream
# main packages through `tool` directives (no copied source). All commands build in one `go build`, so the packages
# they share compile once.
#
# Progress goes to stderr; stdout is the folder of the binaries. `--print-dir` only prints that folder (tests use
# it to find the binaries without installing anything).
set -euo pipefail

KUBE_VERSION="${SVC_KUBE_VERSION:-v1.36.3}"
GO="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/svc/kube-${KUBE_VERSION}"
BIN_DIR="${CACHE_DIR}/bin"
COMMANDS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)

log() { echo "ensure-kube: $*" >&2; }

apt_install() {
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  fi
}

ensure_host_tools() {
  command -v etcd >/dev/null 2>&1 || { log "installing etcd from Debian (etcd-server)"; apt_install etcd-server; }
  command -v openssl >/dev/null 2>&1 || { log "installing openssl from Debian"; apt_install openssl; }
}

# Lines `k8s.io/x => ./staging/src/k8s.io/x` of the Kubernetes go.mod, as module paths.
staging_modules() {
  local gomod="$1"
  sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "$gomod"
}

command_package() { echo "k8s.io/kubernetes/cmd/$1"; }

write_wrapper_module() {
  local src="${CACHE_DIR}/src" gomod staging_version cmd
  staging_version="v0.${KUBE_VERSION#v1.}"
  gomod="$("$GO" mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
  [ -f "$gomod" ] || { log "cannot download k8s.io/kubernetes@${KUBE_VERSION}"; exit 1; }

  mkdir -p "$src"
  {
    echo "module svc.local/kube-build"
    echo
    grep -E '^(go|godebug) ' "$gomod"
    echo
    echo "tool ("
    for cmd in "${COMMANDS[@]}"; do echo "	$(command_package "$cmd")"; done
    echo ")"
    echo
    echo "require k8s.io/kubernetes ${KUBE_VERSION}"
    echo
    echo "replace ("
    staging_modules "$gomod" | while read -r mod; do echo "	${mod} => ${mod} ${staging_version}"; done
    echo ")"
  } >"${src}/go.mod"
  # kube-proxy's IPVS mode imports github.com/moby/ipvs, which k8s.io/kubernetes requires only indirectly: tidy
  # leaves its go.sum entry out unless the wrapper names it.
  (cd "$src" && "$GO" get github.com/moby/ipvs) >"${CACHE_DIR}/tidy.log" 2>&1 \
    && (cd "$src" && "$GO" mod tidy) >>"${CACHE_DIR}/tidy.log" 2>&1 \
    || { cat "${CACHE_DIR}/tidy.log" >&2; exit 1; }
}

build_commands() {
  local src="${CACHE_DIR}/src" minor started out="${BIN_DIR}.tmp.$$" pkgs=() cmd
  minor="${KUBE_VERSION#v1.}"; minor="${minor%%.*}"
  write_wrapper_module
  for cmd in "${COMMANDS[@]}"; do pkgs+=("$(command_package "$cmd")"); done
  log "building ${COMMANDS[*]} ${KUBE_VERSION} (15 to 25 minutes on a cold Go build cache, seconds when warm)"
  started=$(date +%s)
  mkdir -p "$out"
  (cd "$src" && nice -n 10 "$GO" build -trimpath -o "$out/" \
    -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${KUBE_VERSION} \
      -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} \
      -X k8s.io/component-base/version.gitTreeState=clean \
      -X k8s.io/client-go/pkg/version.gitVersion=${KUBE_VERSION} \
      -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=${minor}" \
    "${pkgs[@]}")
  # Per process, then moved whole: two checkouts may build at once, and a half-built folder is never used.
  rm -rf "$BIN_DIR" && mv "$out" "$BIN_DIR"
  log "built ${BIN_DIR} in $(( $(date +%s) - started ))s"
}

built() {
  local cmd
  for cmd in "${COMMANDS[@]}"; do [ -x "${BIN_DIR}/${cmd}" ] || return 1; done
  "${BIN_DIR}/kube-apiserver" --version >/dev/null 2>&1
}

if [ "${1:-}" = "--print-dir" ]; then echo "$BIN_DIR"; exit 0; fi
ensure_host_tools
built || build_commands
echo "$BIN_DIR"
