#!/usr/bin/env bash
# Build localhost/tunnelfix/ee-base:latest, the base image of execution-environment.yml: the lab's
# Debian 12 image (lab/images/build.sh, no registry) plus pip, venv, openssh-client, git, dumb-init
# and the tf-pkg apt-get wrapper ansible-builder's package_manager_path points at.
#
# Usage: ee/build-base.sh [--rebuild]
# Idempotent: the image carries a hash of its inputs (ee/base/* and the Debian image's id) and is
# rebuilt only when that hash changes (or with --rebuild). apt inside the build uses the Debian
# mirror the lab image was bootstrapped from; pip uses PyPI, trusting the host's CA bundle
# (TF_BUILD_CA_BUNDLE, default /etc/ssl/certs/ca-certificates.crt), mounted read-only into the
# build steps only: a TLS-intercepting proxy the host trusts is trusted there too, and nothing of
# it stays in the image.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/lab/containers.conf}"
DEBIAN_IMAGE="localhost/tunnelfix/debian12:latest"
EE_BASE_IMAGE="localhost/tunnelfix/ee-base:latest"
TF_BUILD_CA_BUNDLE="${TF_BUILD_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
log() { printf '[ee-base] %s\n' "$*" >&2; }

rebuild=false
case "${1:-}" in
  --rebuild) rebuild=true ;;
  "") ;;
  *) log "unknown argument: $1"; exit 2 ;;
esac

podman image exists "${DEBIAN_IMAGE}" || lab/images/build.sh
debian_id="$(podman image inspect -f '{{.Id}}' "${DEBIAN_IMAGE}")"
source_hash="$( (echo "${debian_id}"; cat ee/base/Containerfile ee/base/tf-pkg) | sha256sum | cut -c1-16)"
current="$(podman image inspect -f '{{index .Labels "tunnelfix.image.source"}}' "${EE_BASE_IMAGE}" 2>/dev/null || true)"
if ! "${rebuild}" && [[ "${current}" == "${source_hash}" ]]; then
  log "${EE_BASE_IMAGE} up to date (source ${source_hash})"
  exit 0
fi
old_id="$(podman image inspect -f '{{.Id}}' "${EE_BASE_IMAGE}" 2>/dev/null || true)"
log "building ${EE_BASE_IMAGE} from ${DEBIAN_IMAGE} (source ${source_hash})"
ca_mount=()
[[ -s "${TF_BUILD_CA_BUNDLE}" ]] && ca_mount=(--volume "${TF_BUILD_CA_BUNDLE}:/etc/ssl/certs/ca-certificates.crt:ro")
podman build --quiet --pull=never "${ca_mount[@]}" --build-arg "DEBIAN_IMAGE=${DEBIAN_IMAGE}" \
  --label tunnelfix.image=ee-base --label "tunnelfix.image.source=${source_hash}" \
  -t "${EE_BASE_IMAGE}" -f ee/base/Containerfile ee/base >/dev/null
if [[ -n "${old_id}" && "${old_id}" != "$(podman image inspect -f '{{.Id}}' "${EE_BASE_IMAGE}")" ]]; then
  podman rmi "${old_id}" >/dev/null 2>&1 || log "previous image ${old_id:0:12} still in use; kept"
fi
log "${EE_BASE_IMAGE} ready"
