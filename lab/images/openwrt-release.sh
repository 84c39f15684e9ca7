# shellcheck shell=bash
# The OpenWrt release profiles of the lab's router image (sourced by lab/images/build-openwrt.sh,
# lab/common.sh and the tests that start the image). One place names them:
#   TUNNELFIX_OPENWRT_RELEASE   23.05, 24.10 or 25.12 (default 24.10): which release the image models
#   TUNNELFIX_OPENWRT_IMAGE     the image's name (default localhost/tunnelfix/openwrt-like:<release>)
OPENWRT_RELEASES=(23.05 24.10 25.12)
OPENWRT_DEFAULT_RELEASE=24.10
TUNNELFIX_OPENWRT_RELEASE="${TUNNELFIX_OPENWRT_RELEASE:-${OPENWRT_DEFAULT_RELEASE}}"

# openwrt_release_check: fails, naming the variable and its value, for a release without a profile.
openwrt_release_check() {
  local r
  for r in "${OPENWRT_RELEASES[@]}"; do [[ "${TUNNELFIX_OPENWRT_RELEASE}" == "${r}" ]] && return 0; done
  printf 'TUNNELFIX_OPENWRT_RELEASE must be one of %s, got %q\n' "${OPENWRT_RELEASES[*]}" \
    "${TUNNELFIX_OPENWRT_RELEASE}" >&2
  return 1
}

# openwrt_image: the image of the selected release profile.
openwrt_image() {
  printf '%s\n' "${TUNNELFIX_OPENWRT_IMAGE:-localhost/tunnelfix/openwrt-like:${TUNNELFIX_OPENWRT_RELEASE}}"
}
