#!/usr/bin/env bash
# molecule test of the given scenarios, on the configured OpenWrt release profile or on the ones named.
#
# Usage: tests/molecule/run.sh [--release 23.05|24.10|25.12]... SCENARIO...   (root; from make)
#   without --release   the scenarios on the configured profile: TUNNELFIX_OPENWRT_RELEASE and
#                       TUNNELFIX_OPENWRT_IMAGE as they are (make images built that image)
#   --release R         for each R in order: build R's image (lab/images/build-openwrt.sh --release R:
#                       the configured image's name with R as its tag, lab/images/openwrt-release.sh),
#                       then the scenarios with TUNNELFIX_OPENWRT_RELEASE/_IMAGE set to R's
# A scenario's container names are fixed (its molecule.yml), and every molecule run installs the collection
# into the same ~/.ansible/collections (two installs at once fail with "File exists"), so each run holds
# the machine-wide lock /tmp/tunnelfix-molecule.lock: runs from make molecule and make molecule-profiles
# (side by side in make test) take turns. Stops at the first scenario that fails, with molecule's exit status.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "${HERE}/../.." && pwd)"
# shellcheck source=lab/images/openwrt-release.sh
. "${REPO}/lab/images/openwrt-release.sh"

releases=()
scenarios=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --release) [[ $# -ge 2 ]] || { echo "--release needs a value (${OPENWRT_RELEASES[*]})" >&2; exit 2; }
               releases+=("$2"); shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "unknown option: $1" >&2; exit 2 ;;
    *) [[ -f "${REPO}/molecule/$1/molecule.yml" ]] || { echo "no molecule scenario '$1' (molecule/$1/molecule.yml)" >&2; exit 2; }
       scenarios+=("$1") ;;
  esac
  shift
done
[[ ${#scenarios[@]} -gt 0 ]] || { echo "no scenario given" >&2; exit 2; }
for r in "${releases[@]}"; do TUNNELFIX_OPENWRT_RELEASE="${r}" openwrt_release_check --release || exit 2; done

cd "${REPO}"
run() {  # run SCENARIO [NOTE]
  echo "== molecule test -s $1${2:+ $2}"
  flock /tmp/tunnelfix-molecule.lock molecule test -s "$1"
}
if [[ ${#releases[@]} -eq 0 ]]; then
  for s in "${scenarios[@]}"; do run "${s}"; done
  exit 0
fi
for r in "${releases[@]}"; do
  image="$(openwrt_image_for "${r}")"
  lab/images/build-openwrt.sh --release "${r}"
  for s in "${scenarios[@]}"; do
    (export TUNNELFIX_OPENWRT_RELEASE="${r}" TUNNELFIX_OPENWRT_IMAGE="${image}"; run "${s}" "on OpenWrt ${r} (${image})")
  done
done
