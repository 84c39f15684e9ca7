#!/usr/bin/env bash
# Remove everything lab/up.sh created: the tf-* lab containers (and with them their veths, the
# relay and wg-quick), the host side of the management links, the management bridge, the lab
# keys and inventory under lab/state/, and the host sysctl change (restored to its recorded value).
#
# Usage: lab/down.sh [--images]
#   --images   also remove the base images (Debian, and the OpenWrt-like image of every release
#              profile: the configured name and the default one, each with every release as its tag)
#              and the cached rootfs tarball (lab/images/build.sh and build-openwrt.sh rebuild them;
#              molecule scenarios use them too).
# Safe to run when nothing exists.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

remove_images=false
for arg in "$@"; do
  case "${arg}" in
    --images) remove_images=true ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) die "unknown argument: ${arg}" ;;
  esac
done
[[ "$(id -u)" -eq 0 ]] || die "must run as root"

# Containers: by name, and anything else carrying the lab label (e.g. a renamed leftover).
# Removing a container destroys its network namespace, which deletes both ends of its veths.
for role in "${ROLES[@]}"; do
  name="$(container_name "${role}")"
  if podman container exists "${name}"; then
    podman rm -f -t 5 "${name}" >/dev/null
    log "removed container ${name}"
  fi
done
while read -r id; do
  [[ -n "${id}" ]] || continue
  podman rm -f -t 5 "${id}" >/dev/null
  log "removed labelled container ${id}"
done < <(podman ps -a -q --filter "label=${LAB_LABEL}")

# Host side of the management network (normally already gone with the containers).
for role in "${MANAGED_ROLES[@]}"; do
  if ip link show dev "tfm-${role}" &>/dev/null; then
    ip link del dev "tfm-${role}"
    log "removed tfm-${role}"
  fi
done
if ip link show dev "${MGMT_BRIDGE}" &>/dev/null; then
  ip link del dev "${MGMT_BRIDGE}"
  log "removed bridge ${MGMT_BRIDGE}"
fi

# Host sysctl: restore the value recorded before up.sh first changed it.
if [[ -s "${HOST_SYSCTL_ORIG}" ]]; then
  orig="$(sed -n 's/^net\.ipv4\.tcp_allowed_congestion_control=//p' "${HOST_SYSCTL_ORIG}")"
  if [[ -n "${orig}" ]]; then
    echo "${orig}" > "${HOST_CC_ALLOWED}"
    log "host: tcp_allowed_congestion_control restored to '${orig}'"
  fi
  rm -f "${HOST_SYSCTL_ORIG}"
fi

# Lab secrets and generated files (the rootfs cache stays unless --images).
rm -f "${SSH_KEY}" "${SSH_KEY}.pub" "${INVENTORY}" "${STATE_DIR}"/.put.* "${STATE_DIR}"/.inventory.*
rm -rf "${WG_KEY_DIR}"

# Untagged predecessors of the image (left by build.sh --rebuild while containers used them).
current_image="$(podman image inspect -f '{{.Id}}' "${IMAGE}" 2>/dev/null || true)"
while read -r id; do
  [[ -n "${id}" && "${id}" != "${current_image}" ]] || continue
  if podman rmi "${id}" >/dev/null 2>&1; then log "removed replaced image ${id:0:12}"; fi
done < <(podman images -a -q --no-trunc --filter "label=${IMAGE_LABEL}" | sed 's/^sha256://')

if "${remove_images}"; then
  # Not forced: an image still used by e.g. a molecule container is kept, with a message.
  owrt_images=()
  for release in "${OPENWRT_RELEASES[@]}"; do
    owrt_images+=("$(openwrt_image_for "${release}")" "${OPENWRT_IMAGE_REPO_DEFAULT}:${release}")
  done
  # (and :latest, the name before the release profiles)
  for image in "${IMAGE}" "${OWRT_IMAGE}" "${owrt_images[@]}" "${OPENWRT_IMAGE_REPO_DEFAULT}:latest"; do
    if podman image exists "${image}"; then
      podman rmi "${image}" >/dev/null 2>&1 || log "image ${image} is still in use; not removed"
    fi
  done
  rm -f "${ROOTFS_TARBALL}" "${ROOTFS_TARBALL}.tmp"
  rm -rf --one-file-system "${STATE_DIR}"/build.*
  log "removed image and rootfs cache"
fi
rmdir "${STATE_DIR}" 2>/dev/null || true
log "lab is down"
