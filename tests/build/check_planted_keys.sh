#!/usr/bin/env bash
# The artifact after keys were left in the tree: build from a scratch copy of the tracked files with
#   - bench/state/id_ed25519 (an OpenSSH private key) and bench/state/wg/*.key (WireGuard private keys),
#     as make bench leaves them: the artifact must not contain bench/ at all, and its scan passes;
#   - a WireGuard private key inside an allowed path (docs/): the scan must fail naming that file.
# The keys are made here, in a temporary directory, and removed with it.
set -euo pipefail
umask 077
cd "$(dirname "$0")/../.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$scratch"
mkdir -p "$scratch/bench/state/wg"
ssh-keygen -q -t ed25519 -N '' -C planted -f "$scratch/bench/state/id_ed25519"
for i in 1 2 3; do wg genkey > "$scratch/bench/state/wg/host$i.key"; done

ansible-galaxy collection build --force --output-path "$scratch/dist1" "$scratch" >/dev/null
artifact=$(ls "$scratch"/dist1/tunnelfix-fleet-*.tar.gz)
if tar tzf "$artifact" | grep -q '^bench/'; then echo "FAIL: the artifact built after make bench contains bench/"; exit 1; fi
python tests/build/scan_artifact.py "$artifact" "$scratch/galaxy.yml" >/dev/null \
  || { echo "FAIL: the scan rejects an artifact built with keys only under bench/state"; exit 1; }

{ echo "# notes"; echo "PrivateKey = $(wg genkey)"; } > "$scratch/docs/leak.md"
ansible-galaxy collection build --force --output-path "$scratch/dist2" "$scratch" >/dev/null
artifact=$(ls "$scratch"/dist2/tunnelfix-fleet-*.tar.gz)
rc=0
out=$(python tests/build/scan_artifact.py "$artifact" "$scratch/galaxy.yml") || rc=$?
if [[ $rc -ne 1 || "$out" != *"FAIL $(basename "$artifact"): docs/leak.md:2: a WireGuard key"* ]]; then
  echo "FAIL: a WireGuard key planted in docs/ was not named by the scan (rc $rc):"; echo "$out"; exit 1
fi
echo "PASS: keys left in bench/state stay out of the artifact; a key planted in docs/ fails the scan, named"
