#!/usr/bin/env bash
# Builds the images of the local cluster without Docker and without a registry, and loads them into the cluster's
# containerd (namespace k8s.io) under the names the chart, the manifests and the kubelet ask for.
#   images.sh node   the node's own images: pause (the pod sandbox) and CoreDNS
#   images.sh svc    the four targets of docker/Dockerfile, and the Redis of manifests/examples
# What goes into svc's images is docker/Dockerfile and nothing else: buildah builds it as Docker would. Only its
# base, node:20-slim, cannot be pulled here; it is made locally (Debian bookworm from Debian's packages, plus this
# machine's Node and npm) and cached. Layers are cached by buildah, so an unchanged tree rebuilds in seconds.
set -euo pipefail
# shellcheck source=env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

IMAGES_CACHE="${CLUSTER_CACHE}/images"
TAG="$(node -p "require('${CLUSTER_ROOT}/package.json').version")"
NODE_BASE="docker.io/library/node:20-slim"
REDIS_IMAGE="docker.io/library/redis:7-alpine"
SVC_TARGETS=(svcd svc-injector example-pluggable-component example-workflow-app)

have_image() { buildah inspect --type image "$1" >/dev/null 2>&1; }

# Debian bookworm, minimal, from Debian's packages: the root file system of the node base.
bookworm_rootfs() {
  local dir="${IMAGES_CACHE}/bookworm"
  if [ ! -f "${dir}/.complete" ]; then
    cluster_log "images: debootstrap of Debian bookworm (minbase, once)"
    rm -rf "$dir" "${dir}.tmp"
    debootstrap --variant=minbase bookworm "${dir}.tmp" http://deb.debian.org/debian >"${IMAGES_CACHE}/debootstrap.log" 2>&1 \
      || { tail -n 20 "${IMAGES_CACHE}/debootstrap.log" >&2; cluster_fail "debootstrap failed"; }
    rm -rf "${dir}.tmp/var/cache/apt/archives/"*.deb
    mv "${dir}.tmp" "$dir"
    touch "${dir}/.complete"
  fi
  echo "$dir"
}

# A file tree committed as an image: `from_tree NAME DIR [buildah config args...]`.
from_tree() {
  local name="$1" dir="$2" ctr mnt
  shift 2
  ctr="$(buildah from scratch)"
  mnt="$(buildah mount "$ctr")"
  cp -a "${dir}/." "$mnt/"
  buildah umount "$ctr" >/dev/null
  buildah config "$@" "$ctr"
  buildah commit --quiet --rm "$ctr" "$name" >/dev/null
}

# node:20-slim's stand-in: bookworm + this machine's node, npm and Node headers (where node:20-slim has them, in
# /usr/local). npm_config_nodedir points native builds at those headers: node-gyp cannot download them here.
node_base() {
  local node_version rootfs tree
  node_version="$(node --version)"
  if have_image "$NODE_BASE" && [ "$(buildah inspect --type image --format '{{index .OCIv1.Config.Labels "svc.node-version"}}' "$NODE_BASE")" = "$node_version" ]; then
    return
  fi
  cluster_log "images: ${NODE_BASE} from Debian bookworm and this machine's Node ${node_version}"
  rootfs="$(bookworm_rootfs)"
  tree="$(mktemp -d)"
  cp -a "${rootfs}/." "$tree/"
  rm -f "${tree}/.complete"
  install -D -m 0755 "$(readlink -f "$(command -v node)")" "${tree}/usr/local/bin/node"
  mkdir -p "${tree}/usr/local/lib/node_modules" "${tree}/usr/local/include"
  cp -a "$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")" "${tree}/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "${tree}/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "${tree}/usr/local/bin/npx"
  cp -a /usr/include/node "${tree}/usr/local/include/node"
  # node:20-slim's user 1000 is `node`; the images run as 1000:1000.
  chroot "$tree" groupadd --gid 1000 node
  chroot "$tree" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  # The build stage's npm reaches the registry as this machine's Node does: with the CAs it is told to trust.
  local trust=()
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    install -D -m 0644 "$NODE_EXTRA_CA_CERTS" "${tree}/usr/local/share/svc/extra-ca-certs.pem"
    trust=(--env NODE_EXTRA_CA_CERTS=/usr/local/share/svc/extra-ca-certs.pem)
  fi
  from_tree "$NODE_BASE" "$tree" --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="${node_version#v}" --env npm_config_nodedir=/usr/local "${trust[@]}" --cmd node \
    --label "svc.node-version=${node_version}"
  rm -rf "$tree"
}

# A tree holding one binary and the shared libraries it loads, for images that need nothing else.
binary_tree() {
  local bin="$1" dest="$2" lib
  install -D -m 0755 "$bin" "${dest}/usr/local/bin/$(basename "$bin")"
  for lib in $(ldd "$bin" | awk '/=>/ { print $3 } /^\t\// { print $1 }'); do
    install -D -m 0755 "$(readlink -f "$lib")" "${dest}${lib}"
  done
}

# Redis for the example's actor store: this machine's redis-server (Debian) under the name the example asks for.
# Protected mode off, as the official image builds it (its pods are reached from other pods, with no password).
redis_image() {
  local tree
  tree="$(mktemp -d)"
  binary_tree "$(command -v redis-server)" "$tree"
  mkdir -p "${tree}/data" "${tree}/tmp" && chmod 1777 "${tree}/tmp" && chown 999:999 "${tree}/data"
  from_tree "$REDIS_IMAGE" "$tree" --entrypoint '["redis-server", "--protected-mode", "no"]' --cmd '' --workingdir /data --port 6379
  rm -rf "$tree"
}

pause_image() {
  local tree
  tree="$(mktemp -d)"
  gcc -static -O2 -o "${tree}/pause" "${CLUSTER_ROOT}/e2e/cluster/pause.c"
  from_tree "$PAUSE_IMAGE" "$tree" --entrypoint '["/pause"]' --user 65535:65535
  rm -rf "$tree"
}

# CoreDNS from its Go module (static), cached per version.
coredns_image() {
  local tree
  if [ ! -x "$COREDNS_BIN" ]; then
    cluster_log "images: building CoreDNS ${COREDNS_VERSION} from its Go module (about 6 minutes on a cold Go cache)"
    mkdir -p "$(dirname "$COREDNS_BIN")"
    CGO_ENABLED=0 GOBIN="$(dirname "$COREDNS_BIN")" nice -n 10 go install "github.com/coredns/coredns@${COREDNS_VERSION}"
  fi
  tree="$(mktemp -d)"
  install -D -m 0755 "$COREDNS_BIN" "${tree}/coredns"
  from_tree "$COREDNS_IMAGE" "$tree" --entrypoint '["/coredns"]' --port 53/udp --port 53/tcp
  rm -rf "$tree"
}

svc_images() {
  local target
  node_base
  for target in "${SVC_TARGETS[@]}"; do
    cluster_log "images: docker/Dockerfile --target ${target}"
    buildah bud --quiet --layers --pull=never --network=host --isolation=chroot \
      -f "${CLUSTER_ROOT}/docker/Dockerfile" --target "$target" -t "docker.io/svc/${target}:${TAG}" "$CLUSTER_ROOT" >/dev/null
    without_build_trust "docker.io/svc/${target}:${TAG}"
  done
}

# The node base's NODE_EXTRA_CA_CERTS is for the build stage's npm only: node:20-slim sets none, and with it every
# Node process of a pod would parse those certificates before running anything (~90 ms each on this machine:
# docs/performance.md, eleventh session). Each final image is committed again without it.
without_build_trust() {
  local image="$1" ctr
  ctr="$(buildah from --pull=never "$image")"
  buildah config --env NODE_EXTRA_CA_CERTS- "$ctr"
  buildah commit --quiet --rm "$ctr" "$image" >/dev/null
}

# Copies images from buildah's store into the cluster's containerd, where the kubelet finds them.
load_images() {
  local image archive
  archive="$(mktemp -u --suffix .tar)"
  for image in "$@"; do
    buildah push --quiet "$image" "docker-archive:${archive}:${image}" >/dev/null
    ctr_k8s images import "$archive" >/dev/null
    rm -f "$archive"
    cluster_log "images: loaded ${image}"
  done
}

mkdir -p "$IMAGES_CACHE"
case "${1:-}" in
  node)
    have_image "$PAUSE_IMAGE" || pause_image
    have_image "$COREDNS_IMAGE" || coredns_image
    load_images "$PAUSE_IMAGE" "$COREDNS_IMAGE"
    ;;
  svc)
    svc_images
    redis_image
    images=("$REDIS_IMAGE")
    for target in "${SVC_TARGETS[@]}"; do images+=("docker.io/svc/${target}:${TAG}"); done
    load_images "${images[@]}"
    ;;
  *) echo "usage: $0 node|svc" >&2; exit 2 ;;
esac
