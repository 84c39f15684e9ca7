#!/usr/bin/env bash
# Build the execution environment localhost/tunnelfix/ee:latest (execution-environment.yml).
#   1. ee/build-base.sh: localhost/tunnelfix/ee-base:latest from the lab's Debian image (cached)
#   2. scripts/build_collection.sh (git-tracked files, scanned) -> .cache/ee/tunnelfix-fleet.tar.gz (the file
#      the EE installs)
#   3. ansible-builder build (podman, layer cache on: only the stages after the collection rebuild
#      when nothing but the collection changed)
# Usage: ee/build.sh [TAG]   (default localhost/tunnelfix/ee:latest)
# The host's CA bundle is mounted read-only into every build step (see ee/build-base.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/lab/containers.conf}"
export PATH="$PWD/.venv/bin:$PATH"
TAG="${1:-localhost/tunnelfix/ee:latest}"
TF_BUILD_CA_BUNDLE="${TF_BUILD_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
log() { printf '[ee] %s\n' "$*" >&2; }

ee/build-base.sh
rm -rf .cache/ee/dist
mkdir -p .cache/ee
scripts/build_collection.sh .cache/ee/dist >/dev/null \
  || { log "scripts/build_collection.sh failed (above): no artifact for the execution environment"; exit 1; }
mv -f .cache/ee/dist/tunnelfix-fleet-*.tar.gz .cache/ee/tunnelfix-fleet.tar.gz
rm -rf .cache/ee/dist
extra=(--pull=never)
[[ -s "${TF_BUILD_CA_BUNDLE}" ]] && extra+=(--volume "${TF_BUILD_CA_BUNDLE}:/etc/ssl/certs/ca-certificates.crt:ro")
old_id="$(podman image inspect -f '{{.Id}}' "${TAG}" 2>/dev/null || true)"
build_start="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "ansible-builder build -t ${TAG}"
ansible-builder build --container-runtime podman -f execution-environment.yml \
  --context .cache/ee/context -t "${TAG}" --extra-build-cli-args "${extra[*]}" -v 1 \
  > .cache/ee/build.log 2>&1 || { log "ansible-builder failed; last lines of .cache/ee/build.log:"; tail -n 40 .cache/ee/build.log >&2; exit 1; }
new_id="$(podman image inspect -f '{{.Id}}' "${TAG}")"
# The replaced image is not needed, nor the stage images earlier builds left untagged (every image
# built on the base inherits its label tunnelfix.image=ee-base). Layers this build reused are
# parents of its images, so never dangling: the layer cache stays.
if [[ -n "${old_id}" && "${old_id}" != "${new_id}" ]]; then
  podman rmi "${old_id}" >/dev/null 2>&1 || log "previous image ${old_id:0:12} still in use; kept"
fi
for _ in 1 2 3 4 5 6 7 8 9 10; do
  mapfile -t stale < <(podman images -a -q --filter dangling=true --filter label=tunnelfix.image=ee-base \
    --filter "until=${build_start}")
  removed=0
  for id in "${stale[@]}"; do podman rmi "${id}" >/dev/null 2>&1 && removed=$((removed + 1)); done
  ((removed)) || break
done
log "${TAG} ready ($(podman image inspect -f '{{.Size}}' "${TAG}" | awk '{printf "%.0f MB", $1/1e6}'))"
