#!/usr/bin/env bash
# Build the execution environment (ee/build.sh: base image from the lab's Debian image, the
# collection artifact, ansible-builder) and prove it works, without network at run time:
#   1. ansible-doc resolves tunnelfix.fleet.iperf3 from /usr/share/ansible/collections
#   2. ansible-playbook runs tests/build/fqcn_playbook.yml (FQCNs only, localhost, read-only)
#   3. ansible-runner (what AWX/AAP call in an EE) runs the same playbook from a private data dir
# Needs: make images (localhost/tunnelfix/debian12:latest); pip in the build uses PyPI.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/lab/containers.conf}"
TAG="${TF_EE_TAG:-localhost/tunnelfix/ee:latest}"
COLLECTIONS=/usr/share/ansible/collections
passed=0
failed=0
pass() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
ee_run() { podman run --rm --network none -e ANSIBLE_NOCOLOR=1 -v "$PWD/tests/build/fqcn_playbook.yml:/mnt/fqcn_playbook.yml:ro" "$TAG" "$@"; }

start=$SECONDS
ee/build.sh "$TAG"
pass "ee/build.sh: $TAG built in $((SECONDS - start)) s"

doc=$(ee_run ansible-doc -t module tunnelfix.fleet.iperf3 2>&1) || true
if grep -q "^> MODULE tunnelfix.fleet.iperf3 ($COLLECTIONS/ansible_collections/tunnelfix/fleet/plugins/modules/iperf3.py)" <<<"$doc"; then
  pass "ansible-doc tunnelfix.fleet.iperf3 in the EE resolves from $COLLECTIONS"
else
  fail "ansible-doc tunnelfix.fleet.iperf3 in the EE:"; head -n 20 <<<"$doc"
fi

# netaddr: the controller-side library the plugins' address logic uses (execution-environment.yml dependencies.python).
if got=$(ee_run python3 -c 'import netaddr; print(netaddr.__version__)' 2>&1) && [[ $got == 1.3.0 ]]; then
  pass "netaddr $got importable in the EE"
else
  fail "netaddr in the EE: $got"
fi

play=$(ee_run ansible-playbook -i localhost, -e "tfb_collections_path=$COLLECTIONS" /mnt/fqcn_playbook.yml 2>&1) || true
if grep -q 'localhost *: ok=5 .*failed=0 .*rescued=1' <<<"$play"; then
  pass "ansible-playbook fqcn_playbook.yml in the EE: $(grep -o 'ok=5.*' <<<"$play" | tr -s ' ')"
else
  fail "ansible-playbook fqcn_playbook.yml in the EE:"; tail -n 40 <<<"$play"
fi

# A private data dir as AWX lays it out: project/, inventory/, env/extravars.
runner=$(ee_run sh -c "set -e; d=\$(mktemp -d); mkdir -p \$d/project \$d/inventory \$d/env
  cp /mnt/fqcn_playbook.yml \$d/project/
  echo 'localhost ansible_connection=local' > \$d/inventory/hosts
  echo 'tfb_collections_path: $COLLECTIONS' > \$d/env/extravars
  ansible-runner run \$d -p fqcn_playbook.yml
  echo \"runner status: \$(cat \$d/artifacts/*/status)\"" 2>&1) || true
if grep -q 'localhost *: ok=5 .*failed=0 .*rescued=1' <<<"$runner" && grep -qx 'runner status: successful' <<<"$runner"; then
  pass "ansible-runner run in the EE: $(grep -o 'ok=5.*' <<<"$runner" | tr -s ' ')"
else
  fail "ansible-runner run in the EE:"; tail -n 40 <<<"$runner"
fi
echo "ee: $passed passed, $failed failed ($((SECONDS - start)) s)"
((failed == 0))
