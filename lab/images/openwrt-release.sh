# shellcheck shell=bash
# The OpenWrt release profiles of the lab's router image (sourced by lab/images/build-openwrt.sh,
# lab/common.sh and the tests that start the image). One place names them:
#   TUNNELFIX_OPENWRT_RELEASE   23.05, 24.10 or 25.12 (default 24.10): which release the image models
#   TUNNELFIX_OPENWRT_IMAGE     the image's name (default localhost/tunnelfix/openwrt-like:<release>)
# Another profile's image has the same name with that release as its tag (openwrt_image_for): one
# setting of TUNNELFIX_OPENWRT_IMAGE names a family of images, one per release.
OPENWRT_RELEASES=(23.05 24.10 25.12)
OPENWRT_DEFAULT_RELEASE=24.10
OPENWRT_IMAGE_REPO_DEFAULT=localhost/tunnelfix/openwrt-like
TUNNELFIX_OPENWRT_RELEASE="${TUNNELFIX_OPENWRT_RELEASE:-${OPENWRT_DEFAULT_RELEASE}}"

# openwrt_release_check [NAME]: fails, naming the setting (NAME, default the variable) and its value,
# for a release without a profile.
openwrt_release_check() {
  local r
  for r in "${OPENWRT_RELEASES[@]}"; do [[ "${TUNNELFIX_OPENWRT_RELEASE}" == "${r}" ]] && return 0; done
  printf '%s must be one of %s, got %q\n' "${1:-TUNNELFIX_OPENWRT_RELEASE}" "${OPENWRT_RELEASES[*]}" \
    "${TUNNELFIX_OPENWRT_RELEASE}" >&2
  return 1
}

# openwrt_image: the image of the selected release profile.
openwrt_image() {
  printf '%s\n' "${TUNNELFIX_OPENWRT_IMAGE:-${OPENWRT_IMAGE_REPO_DEFAULT}:${TUNNELFIX_OPENWRT_RELEASE}}"
}

# openwrt_image_for RELEASE: the image of RELEASE's profile: openwrt_image for the selected release,
# for another one openwrt_image's name with RELEASE as its tag (the tag is what follows the last ':'
# when no '/' follows it: a registry's port is not one), e.g. localhost/tunnelfix/openwrt-like:23.05.
openwrt_image_for() {
  local name
  name="$(openwrt_image)"
  if [[ "$1" == "${TUNNELFIX_OPENWRT_RELEASE}" ]]; then printf '%s\n' "${name}"; return; fi
  [[ "${name##*:}" != "${name}" && "${name##*:}" != */* ]] && name="${name%:*}"
  printf '%s:%s\n' "${name}" "$1"
}
