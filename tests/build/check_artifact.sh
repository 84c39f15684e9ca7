#!/usr/bin/env bash
# Build the collection, check the artifact leaves out lab/, tests/, molecule/, bench/ and CI files and
# holds nothing key-shaped and nothing outside galaxy.yml's allow-list (scan_artifact.py), install it
# into an empty collections path and resolve a module by FQCN from there. Then the same build from a
# scratch copy with keys planted (check_planted_keys.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
# TUNNELFIX_BUILD_DIR: where the artifact and its test install go (tests/matrix/run.sh gives each leg its own).
build_dir=${TUNNELFIX_BUILD_DIR:-.cache}
dist=$build_dir/dist install=$build_dir/install
rm -rf "$dist" "$install"
ansible-galaxy collection build --force --output-path "$dist" . >/dev/null
artifact=$(ls "$dist"/tunnelfix-fleet-*.tar.gz)
listing=$(tar tzf "$artifact")
python tests/build/scan_artifact.py "$artifact"
for forbidden in lab/ tests/ molecule/ bench/ examples/ .ci/ .venv/ .cache/ Makefile scripts/ requirements.txt ee/ \
  execution-environment.yml changelogs/.plugin-cache.yaml changelogs/fragments/; do
  if grep -q "^${forbidden}" <<<"$listing"; then echo "FAIL: $artifact contains $forbidden"; exit 1; fi
done
for needed in galaxy.yml MANIFEST.json LICENSE plugins/modules/tunnel_facts.py roles/linux_bbr_fq/meta/argument_specs.yml playbooks/site.yml \
  CHANGELOG.rst changelogs/changelog.yaml meta/execution-environment.yml meta/requirements.txt; do
  if [[ $needed == galaxy.yml ]]; then continue; fi
  grep -qx "$needed" <<<"$listing" || { echo "FAIL: $artifact lacks $needed"; exit 1; }
done
ANSIBLE_COLLECTIONS_PATH=$PWD/$install ansible-galaxy collection install --force -p "$install" "$artifact" >/dev/null
doc=$(ANSIBLE_COLLECTIONS_PATH=$PWD/$install ansible-doc tunnelfix.fleet.iperf3)
grep -q "/$install/ansible_collections/tunnelfix/fleet/plugins/modules/iperf3.py" <<<"$doc" \
  || { echo "FAIL: installed collection does not resolve tunnelfix.fleet.iperf3"; exit 1; }
echo "PASS: $(basename "$artifact") leaves out lab/tests/molecule/bench/CI, holds no key and installs"
tests/build/check_planted_keys.sh
