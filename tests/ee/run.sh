#!/usr/bin/env bash
# Build the execution environment (ee/build.sh: base image from the lab's Debian image, the
# collection artifact, ansible-builder) and prove it works, without network at run time:
#   1. ansible-builder introspect, on a collections path the artifact is installed in, lists the
#      collection's netaddr requirement (meta/execution-environment.yml -> meta/requirements.txt)
#   2. netaddr came into the image through that metadata: the base image has none, the EE file and
#      the build context name none, the build's own introspect script finds it in the image's
#      collections; it imports, in a version the collection's requirement allows
#   3. ansible-doc resolves tunnelfix.fleet.iperf3 from /usr/share/ansible/collections
#   4. ansible-playbook runs tests/build/fqcn_playbook.yml (FQCNs only, localhost, read-only)
#   5. ansible-runner (what AWX/AAP call in an EE) runs the same playbook from a private data dir
#   6. ansible-navigator runs tunnelfix.fleet.diagnose in the image, with the command line and with
#      the ansible-navigator.yml of docs/execution-environment.md, against one host whose SSH port
#      on 127.0.0.1 is closed: diagnose starts from the image's collection, finds the host
#      unreachable and says so, no traceback. Needs /dev/mqueue (mounted here, as root, if missing).
# Needs: make images (localhost/tunnelfix/debian12:latest); pip in the build uses PyPI.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/lab/containers.conf}"
export PATH="$PWD/.venv/bin:$PATH"
TAG="${TF_EE_TAG:-localhost/tunnelfix/ee:latest}"
BASE=localhost/tunnelfix/ee-base:latest
COLLECTIONS=/usr/share/ansible/collections
# The collection's Python requirement as meta/requirements.txt states it (netaddr>=...,<...).
REQ=$(grep -iE '^netaddr[^a-z0-9_.-]' meta/requirements.txt) || { echo "FAIL meta/requirements.txt names no netaddr"; exit 1; }
work=$(mktemp -d /tmp/tf-ee.XXXXXX)
trap 'rm -rf "$work"' EXIT
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

# netaddr, the controller plugins' address library, comes from the collection's metadata as in any
# user's EE: ansible-builder's introspect step reads meta/execution-environment.yml of every
# collection it installed. First what a user runs before building, on the artifact ee/build.sh made.
# Its own collections path only (the Makefile's ansible.cfg points at this checkout as the collection).
intro=$(ANSIBLE_COLLECTIONS_PATH=$work/collections ansible-galaxy collection install -p "$work/collections" .cache/ee/tunnelfix-fleet.tar.gz 2>&1 \
  && ansible-builder introspect "$work/collections" 2>&1) || true
if grep -qxF -- "- '$REQ  # from collection tunnelfix.fleet'" <<<"$intro"; then
  pass "ansible-builder introspect on the installed artifact: $REQ from collection tunnelfix.fleet"
else
  fail "ansible-builder introspect on the installed artifact lists no '$REQ' from tunnelfix.fleet:"; echo "$intro"
fi

# Then the image: netaddr can have come from nowhere else than that step.
if podman run --rm --network none "$BASE" /opt/ee-python/bin/python3 -c 'import netaddr' >/dev/null 2>&1; then
  fail "the base image $BASE already has netaddr: the EE cannot show where it comes from"
elif ! python -c 'import sys, yaml; sys.exit("python" in yaml.safe_load(open("execution-environment.yml"))["dependencies"])' \
  || [[ -e .cache/ee/context/_build/requirements.txt ]] \
  || ! grep -q '^RUN .*introspect.py introspect ' .cache/ee/context/Containerfile \
  || grep -q -- '--user-pip' .cache/ee/context/Containerfile; then
  fail "execution-environment.yml or its build context names Python requirements of its own (or no introspect step)"
else
  pass "no netaddr in $BASE nor in execution-environment.yml/its context; the build's introspect step is the only source"
fi
intro=$(podman run --rm --network none -v "$PWD/.cache/ee/context/_build/scripts/introspect.py:/mnt/introspect.py:ro" "$TAG" \
  python3 /mnt/introspect.py introspect "$COLLECTIONS" 2>&1) || true
if grep -qxF -- "- '$REQ  # from collection tunnelfix.fleet'" <<<"$intro"; then
  pass "the build's introspect.py on the EE's $COLLECTIONS: $REQ from collection tunnelfix.fleet"
else
  fail "the build's introspect.py on the EE's collections:"; echo "$intro"
fi
if got=$(ee_run python3 -c 'import sys, netaddr; from packaging.requirements import Requirement
print(netaddr.__version__); sys.exit(not Requirement(sys.argv[1]).specifier.contains(netaddr.__version__))' "$REQ" 2>&1); then
  pass "netaddr $got importable in the EE ($REQ)"
else
  fail "netaddr in the EE ($REQ): $got"
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
# ansible-navigator (docs/execution-environment.md), as a user runs it from the directory of their
# inventory and ansible.cfg. HOME is empty (runner would mount ~/.ssh), no ANSIBLE_* from the caller.
if [[ ! -d /dev/mqueue ]]; then
  # systemd mounts it at boot; a host without systemd has none, and navigator refuses podman then.
  if ((EUID == 0)) && mkdir /dev/mqueue && mount -t mqueue mqueue /dev/mqueue; then
    # Left as it was found: unmounted and removed when this test ends.
    trap 'umount /dev/mqueue 2>/dev/null; rmdir /dev/mqueue 2>/dev/null; rm -rf "$work"' EXIT
    echo "note: mounted /dev/mqueue (mqueue) for this test, as systemd does at boot: ansible-navigator needs it with podman"
  else
    fail "no /dev/mqueue: ansible-navigator refuses podman without it (mkdir /dev/mqueue && mount -t mqueue mqueue /dev/mqueue as root)"
  fi
fi
settings=$(awk '/^```yaml$/ {inblock = 1; text = ""; next} inblock && /^```$/ {if (text ~ /\nansible-navigator:\n/) {printf "%s", text; exit}; inblock = 0; next}
  inblock {text = text $0 "\n"}' docs/execution-environment.md)
[[ -n $settings ]] || fail "docs/execution-environment.md has no yaml block with ansible-navigator settings"
had_share=$([[ -e /usr/share/ansible ]] && echo yes || echo no)
# navigator_check NAME DIR ARGS...: run diagnose with ansible-navigator in DIR and check what it printed.
navigator_check() {
  local name=$1 dir=$2 rc=0 t0=$SECONDS out
  shift 2
  mkdir -p "$dir/home"
  printf 'all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n        lnx-01: {ansible_host: 127.0.0.1, ansible_port: 1, ansible_user: root}\n' > "$dir/inventory.yml"
  printf '[defaults]\ncallbacks_enabled = tunnelfix.fleet.fleet_summary\n' > "$dir/ansible.cfg"
  (cd "$dir" && while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(ANSIBLE_|SSH_AUTH_SOCK$)' || true)
    HOME=$dir/home timeout 120 ansible-navigator run tunnelfix.fleet.diagnose -i inventory.yml --dc false "$@") > "$dir/out.log" 2>&1 || rc=$?
  out=$(tr -d '\r' < "$dir/out.log")
  if ((rc == 4)) && grep -q "^fatal: \[lnx-01\]: UNREACHABLE! .*Failed to connect to the host via ssh" <<<"$out" \
    && grep -q "^Origin: $COLLECTIONS/ansible_collections/tunnelfix/fleet/playbooks/" <<<"$out" \
    && grep -q '^localhost *: ok=[1-9][0-9]* .*failed=0 ' <<<"$out" && grep -qx 'unreachable: 1 host: lnx-01' <<<"$out" \
    && ! grep -qE 'Traceback|ERROR! |\[(DEPRECATION )?WARNING\]' <<<"$out" && ((SECONDS - t0 < 60)) \
    && compgen -G "$dir/diagnose-artifact-*.json" >/dev/null; then
    pass "ansible-navigator ($name): diagnose ran from the EE's collection, lnx-01 unreachable, rc 4, summary, artifact in the inventory's directory ($((SECONDS - t0)) s)"
  else
    fail "ansible-navigator ($name) (rc $rc, $((SECONDS - t0)) s):"; tail -n 40 <<<"$out"; ls "$dir"
  fi
}
navigator_check "command line" "$work/nav-cli" --eei "$TAG" --pull-policy never --ce podman --mode stdout \
  --pas '{playbook_name}-artifact-{time_stamp}.json'
mkdir -p "$work/nav-settings"
printf '%s' "${settings//localhost\/tunnelfix\/ee:latest/$TAG}" > "$work/nav-settings/ansible-navigator.yml"
navigator_check "docs' ansible-navigator.yml" "$work/nav-settings"
if [[ $had_share == no && -e /usr/share/ansible ]]; then
  fail "ansible-navigator created /usr/share/ansible on the host (a playbook artifact saved next to the collection's playbook)"
fi
echo "ee: $passed passed, $failed failed ($((SECONDS - start)) s)"
((failed == 0))
