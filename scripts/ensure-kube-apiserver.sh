#!/usr/bin/env bash
# Installs etcd (Debian package) and builds kube-apiserver from the Kubernetes Go module, for the admission e2e
# test (e2e/test/kubernetes). The binary is cached per version outside the repository; a second run only checks it.
#
# Why a wrapper module: k8s.io/kubernetes replaces its k8s.io/* staging modules with ./staging paths that are not in
# its module zip, so `go install k8s.io/kubernetes/cmd/kube-apiserver@v1.X` is refused. The wrapper requires
# k8s.io/kubernetes and replaces every staging module with its published v0.X release, then builds the upstream
# main package through a `tool` directive (no copied source).
#
# Progress goes to stderr; stdout is the binary's path. `--print-path` only prints that path (tests use it to find
# the binary without installing anything).
set -euo pipefail

KUBE_VERSION="${SVC_KUBE_APISERVER_VERSION:-v1.36.3}"
GO="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/svc/kube-apiserver-${KUBE_VERSION}"
BIN="${CACHE_DIR}/bin/kube-apiserver"

log() { echo "ensure-kube-apiserver: $*" >&2; }

ensure_etcd() {
  if command -v etcd >/dev/null 2>&1; then return; fi
  log "installing etcd from Debian (etcd-server)"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null
  fi
}

ensure_openssl() {
  if command -v openssl >/dev/null 2>&1; then return; fi
  log "installing openssl from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl >/dev/null
}

# Lines `k8s.io/x => ./staging/src/k8s.io/x` of the Kubernetes go.mod, as module paths.
staging_modules() {
  local gomod="$1"
  sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "$gomod"
}

write_wrapper_module() {
  local src="${CACHE_DIR}/src" gomod staging_version
  staging_version="v0.${KUBE_VERSION#v1.}"
  gomod="$("$GO" mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
  [ -f "$gomod" ] || { log "cannot download k8s.io/kubernetes@${KUBE_VERSION}"; exit 1; }

  mkdir -p "$src"
  {
    echo "module svc.local/kube-apiserver-build"
    echo
    grep -E '^(go|godebug) ' "$gomod"
    echo
    echo "tool k8s.io/kubernetes/cmd/kube-apiserver"
    echo
    echo "require k8s.io/kubernetes ${KUBE_VERSION}"
    echo
    echo "replace ("
    staging_modules "$gomod" | while read -r mod; do echo "	${mod} => ${mod} ${staging_version}"; done
    echo ")"
  } >"${src}/go.mod"
  if ! (cd "$src" && "$GO" mod tidy) >"${CACHE_DIR}/tidy.log" 2>&1; then
    cat "${CACHE_DIR}/tidy.log" >&2
    exit 1
  fi
}

build_kube_apiserver() {
  local src="${CACHE_DIR}/src" minor started
  minor="${KUBE_VERSION#v1.}"; minor="${minor%%.*}"
  write_wrapper_module
  log "building kube-apiserver ${KUBE_VERSION} (several minutes on a cold Go build cache)"
  started=$(date +%s)
  mkdir -p "${CACHE_DIR}/bin"
  (cd "$src" && nice -n 10 "$GO" build -trimpath -o "${BIN}.tmp.$$" \
    -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${KUBE_VERSION} \
      -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} \
      -X k8s.io/component-base/version.gitTreeState=clean" \
    k8s.io/kubernetes/cmd/kube-apiserver)
  mv "${BIN}.tmp.$$" "$BIN" # per process: two checkouts may build at once
  log "built ${BIN} in $(( $(date +%s) - started ))s"
}

if [ "${1:-}" = "--print-path" ]; then echo "$BIN"; exit 0; fi
ensure_etcd
ensure_openssl
if ! { [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; }; then
  build_kube_apiserver
fi
echo "$BIN"
