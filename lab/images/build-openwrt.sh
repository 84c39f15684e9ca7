#!/usr/bin/env bash
# Build the OpenWrt-like test image of one release profile (no Python):
# localhost/tunnelfix/openwrt-like:<release>, release 23.05, 24.10 (the default) or 25.12.
#
# A BusyBox userland (Debian's busybox .deb, unpacked with dpkg-deb, applets installed with
# `busybox --install -s`), /bin/sh = busybox ash, a few real tools copied from this host with the
# shared libraries ldd lists (ip, nft, ethtool, wg, wireguard-go, iperf3, dropbear), OpenWrt's /etc layout with UCI files,
# a uci command-line emulator and init-script stand-ins (lab/images/openwrt/). PID 1 is
# /sbin/tf-init (sleeps until SIGTERM). What is emulated: lab/images/openwrt/README.md.
#
# Usage: lab/images/build-openwrt.sh [--rebuild] [--release 23.05|24.10|25.12]
#   --rebuild   replace the image even if it exists.
#   --release   the release profile (default: $TUNNELFIX_OPENWRT_RELEASE, else 24.10): the files of
#               lab/images/openwrt/releases/<release>/ are laid over the common rootfs, and the
#               stand-ins behave like that release's upstream code (docs/openwrt-fidelity.md).
# The image is $TUNNELFIX_OPENWRT_IMAGE if set, else localhost/tunnelfix/openwrt-like:<release>; with
# --release another than $TUNNELFIX_OPENWRT_RELEASE, that name with the release as its tag.
# Why Debian's dynamic `busybox` and not `busybox-static`: the static build prefers its applets
# (FEATURE_SH_STANDALONE), so its ash runs the busybox `ip` applet even when /sbin/ip (iproute2)
# is on PATH. OpenWrt's busybox does not do that; the dynamic Debian build does not either.
# Needs root, podman, dpkg-deb, apt-get (downloads busybox from the configured Debian
# mirror) and the host tools above (Debian packages iproute2 nftables ethtool wireguard-tools
# wireguard-go iperf3 dropbear-bin).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="${HERE}/openwrt"
export CONTAINERS_CONF="${HERE}/../containers.conf"
# shellcheck source=lab/images/openwrt-release.sh
. "${HERE}/openwrt-release.sh"
IMAGE_LABEL="tunnelfix.image=openwrt-like"
# Real binaries from the host: source path -> path in the image (OpenWrt's locations).
declare -A TOOLS=(
  [/usr/sbin/ip]=/sbin/ip [/usr/sbin/nft]=/usr/sbin/nft [/usr/sbin/ethtool]=/usr/sbin/ethtool
  [/usr/bin/wg]=/usr/bin/wg [/usr/bin/iperf3]=/usr/bin/iperf3
  [/usr/bin/wireguard-go]=/usr/bin/wireguard-go [/usr/sbin/dropbear]=/usr/sbin/dropbear
)

log() { printf '[build-openwrt] %s\n' "$*" >&2; }

# Copy the shared libraries and the loader a host binary needs into ${root}, same paths.
copy_libs() {
  ldd "$1" | awk '/=> \//{print $3} /^[ \t]*\//{print $1}' | while read -r lib; do
    [[ -e "${root}${lib}" ]] || install -D -m 0755 "$(readlink -f "${lib}")" "${root}${lib}"
  done
}

rebuild=false
release=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rebuild) rebuild=true ;;
    --release) [[ $# -ge 2 ]] || { log "--release needs a value (23.05, 24.10 or 25.12)"; exit 2; }
               release="$2"; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) log "unknown argument: $1"; exit 2 ;;
  esac
  shift
done
RELEASE="${release:-${TUNNELFIX_OPENWRT_RELEASE}}"
IMAGE="$(openwrt_image_for "${RELEASE}")"
TUNNELFIX_OPENWRT_RELEASE="${RELEASE}"
openwrt_release_check "${release:+--release}" || exit 2
if [[ "$(id -u)" -ne 0 ]]; then log "must run as root (chroot, podman import)"; exit 1; fi
# The image records a hash of its definition (this script and lab/images/openwrt/: its files and
# its symlinks): an image built from an older definition is rebuilt, so a checkout never tests
# against a stale image.
SOURCE_HASH="$( { cat "${BASH_SOURCE[0]}" "${HERE}/openwrt-release.sh"; echo "${RELEASE}";
  (cd "${SRC}" && find . -type f | LC_ALL=C sort | xargs sha256sum
   find . -type l -printf '%p -> %l\n' | LC_ALL=C sort); } \
  | sha256sum | cut -c1-16)"
if ! "${rebuild}" && podman image exists "${IMAGE}"; then
  if [[ "$(podman image inspect -f '{{index .Labels "tunnelfix.image.source"}}' "${IMAGE}")" == "${SOURCE_HASH}" ]]; then
    log "image ${IMAGE} already present and current (use --rebuild to force)"
    exit 0
  fi
  log "image ${IMAGE} was built from an older definition; rebuilding"
fi
for t in "${!TOOLS[@]}"; do
  [[ -x "${t}" ]] || { log "missing host tool ${t} (apt-get install iproute2 nftables ethtool wireguard-tools wireguard-go iperf3 dropbear-bin)"; exit 1; }
done

work="$(mktemp -d /var/tmp/tf-openwrt-build.XXXXXX)"
trap 'rm -rf "${work}"' EXIT
root="${work}/root"
mkdir -p "${root}"

log "fetching busybox"
# A machine whose package lists were never fetched (or are stale) needs one apt-get update first.
(cd "${work}" && { apt-get download -q busybox >/dev/null 2>&1 \
  || { apt-get update -qq && apt-get download -q busybox >/dev/null 2>&1; }; }) \
  || { log "apt-get download busybox failed (Debian mirror reachable?)"; exit 1; }
dpkg-deb -x "${work}"/busybox_*.deb "${work}/bb"

log "laying out the rootfs"
for d in bin sbin usr/bin usr/sbin lib lib64 usr/lib etc/config etc/init.d etc/rc.d \
         etc/hotplug.d/iface etc/hotplug.d/net root tmp var proc sys dev overlay; do
  mkdir -p "${root}/${d}"
done
chmod 1777 "${root}/tmp"
ln -s /tmp "${root}/var/run" 2>/dev/null || true
ln -sfn /tmp "${root}/var/tmp"
install -m 0755 "${work}/bb/bin/busybox" "${root}/bin/busybox"
copy_libs "${work}/bb/bin/busybox"
chroot "${root}" /bin/busybox --install -s
ln -sfn busybox "${root}/bin/ash"
ln -sfn busybox "${root}/bin/sh"

# Real tools and the shared libraries (and loader) they need, at the same paths as on the host.
for t in "${!TOOLS[@]}"; do
  dest="${root}${TOOLS[${t}]}"
  for d in bin sbin usr/bin usr/sbin; do   # the busybox applet of the same name would shadow it
    [[ -L "${root}/${d}/${t##*/}" ]] && rm -f "${root}/${d}/${t##*/}"
  done
  install -D -m 0755 "${t}" "${dest}"
  copy_libs "${t}"
done

# Our files: /etc (configs, stand-ins), uci emulator, PID 1.
cp -a --remove-destination "${SRC}/rootfs/." "${root}/"   # never write through a busybox symlink
cp -a --remove-destination "${SRC}/releases/${RELEASE}/." "${root}/"   # the release profile's own files
# ... and its links to paths of the image (releases/<release>.links: PATH TARGET a line, # comments)
while read -r link target; do
  [[ -z "${link}" || "${link}" == \#* ]] && continue
  rm -f "${root}${link}"
  ln -s "${target}" "${root}${link}"
done < "${SRC}/releases/${RELEASE}.links"
install -D -m 0755 "${SRC}/uci/uci" "${root}/sbin/uci"
install -D -m 0644 "${SRC}/uci/uci.awk" "${root}/usr/libexec/tunnelfix/uci.awk"

if chroot "${root}" /bin/sh -c 'command -v python3 || command -v python' >/dev/null 2>&1; then
  log "python found in the rootfs; refusing to build"; exit 1
fi

log "importing ${IMAGE} ($(du -sh "${root}" | cut -f1))"
old_id="$(podman image inspect -f '{{.Id}}' "${IMAGE}" 2>/dev/null || true)"
tar -C "${root}" --numeric-owner -cf - . \
  | podman import -q --change 'CMD ["/sbin/tf-init"]' --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' \
      --change "LABEL ${IMAGE_LABEL}" --change "LABEL tunnelfix.image.source=${SOURCE_HASH}" \
      --change "LABEL tunnelfix.openwrt.release=${RELEASE}" \
      - "${IMAGE}" >/dev/null
new_id="$(podman image inspect -f '{{.Id}}' "${IMAGE}")"
if [[ -n "${old_id}" && "${old_id}" != "${new_id}" ]]; then
  podman image rm "${old_id}" >/dev/null 2>&1 || true   # the replaced, now untagged build
fi
log "built ${IMAGE}"
