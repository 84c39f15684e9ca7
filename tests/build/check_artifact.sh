#!/usr/bin/env bash
# Build the collection the one way users build it (scripts/build_collection.sh: git-tracked files only, then
# scripts/scan_artifact.py: nothing outside galaxy.yml's allow-list, no inventory-shaped path, no secret),
# check the artifact leaves out lab/, tests/, molecule/, bench/ and CI files and every link of its Markdown
# resolves inside it (check_links.py), install it into an empty
# collections path and resolve a module by FQCN from there. Then builds from a scratch git repository with
# secrets planted (check_planted_secrets.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
# TUNNELFIX_BUILD_DIR: where the artifact and its test install go (tests/matrix/run.sh gives each leg its own).
build_dir=${TUNNELFIX_BUILD_DIR:-.cache}
dist=$build_dir/dist install=$build_dir/install
rm -rf "$dist" "$install"
scripts/build_collection.sh "$dist" >/dev/null
artifact=$(ls "$dist"/tunnelfix-fleet-*.tar.gz)
listing=$(tar tzf "$artifact")
for forbidden in lab/ tests/ molecule/ bench/ examples/ .ci/ .venv/ .cache/ Makefile scripts/ requirements.txt ee/ \
  execution-environment.yml changelogs/.plugin-cache.yaml changelogs/fragments/; do
  if grep -q "^${forbidden}" <<<"$listing"; then echo "FAIL: $artifact contains $forbidden"; exit 1; fi
done
for needed in galaxy.yml MANIFEST.json LICENSE plugins/modules/tunnel_facts.py roles/linux_bbr_fq/meta/argument_specs.yml playbooks/site.yml \
  CHANGELOG.rst changelogs/changelog.yaml meta/execution-environment.yml meta/requirements.txt; do
  if [[ $needed == galaxy.yml ]]; then continue; fi
  grep -qx "$needed" <<<"$listing" || { echo "FAIL: $artifact lacks $needed"; exit 1; }
done
# Every link of its Markdown resolves inside it (or is a URL): a shipped doc never points at lab/ or examples/.
python tests/build/check_links.py "$artifact" || { echo "FAIL: $artifact's docs link to places it does not hold"; exit 1; }
ANSIBLE_COLLECTIONS_PATH=$PWD/$install ansible-galaxy collection install --force -p "$install" "$artifact" >/dev/null
doc=$(ANSIBLE_COLLECTIONS_PATH=$PWD/$install ansible-doc tunnelfix.fleet.iperf3)
grep -q "/$install/ansible_collections/tunnelfix/fleet/plugins/modules/iperf3.py" <<<"$doc" \
  || { echo "FAIL: installed collection does not resolve tunnelfix.fleet.iperf3"; exit 1; }
echo "PASS: $(basename "$artifact") leaves out lab/tests/molecule/bench/CI, holds no secret, its links resolve, and it installs"
tests/build/check_planted_secrets.sh
