#!/usr/bin/env bash
# Install the artifact tests/build/check_artifact.sh built (.cache/dist) into an EMPTY collections
# path and use it from a directory and a config that cannot see this tree (ansible.cfg's
# collections_path, the .cache/collections symlink, ~/.ansible/collections):
#   1. ansible-galaxy collection list shows tunnelfix.fleet only there
#   2. tests/build/check_docs.py: ansible-doc renders every plugin and role entry point
#   3. tests/build/fqcn_playbook.yml: a playbook using only FQCNs on localhost (read-only)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
artifact=$(ls "${TUNNELFIX_BUILD_DIR:-.cache}"/dist/tunnelfix-fleet-*.tar.gz)
work=$(mktemp -d /tmp/tf-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/collections" "$work/run"
printf '[defaults]\ncollections_path = %s\nhost_key_checking = False\n' "$work/collections" > "$work/ansible.cfg"
# Only the temporary config: no ANSIBLE_* from the caller (the Makefile exports ANSIBLE_CONFIG).
while read -r var; do unset "$var"; done < <(compgen -e | grep '^ANSIBLE_' || true)
export ANSIBLE_CONFIG=$work/ansible.cfg ANSIBLE_HOME=$work/home ANSIBLE_NOCOLOR=1
cd "$work/run"
# No override (COLLECTIONS_ON_ANSIBLE_VERSION_MISMATCH is unset above): meta/runtime.yml's requires_ansible
# must admit this ansible-core, and the install must warn about nothing.
ansible-galaxy collection install -p "$work/collections" "$repo/$artifact" > "$work/install.log" 2>&1 \
  || { echo "FAIL: ansible-galaxy collection install $(basename "$artifact"):"; cat "$work/install.log"; exit 1; }
if grep -E '\[(DEPRECATION )?WARNING\]|ERROR' "$work/install.log"; then
  echo "FAIL: ansible-galaxy collection install printed the lines above"; exit 1
fi
listed=$(ansible-galaxy collection list tunnelfix.fleet 2>&1)
grep -q "^# $work/collections/ansible_collections$" <<<"$listed" \
  || { echo "FAIL: tunnelfix.fleet not listed in $work/collections:"; echo "$listed"; exit 1; }
if [[ $(grep -c '^tunnelfix.fleet ' <<<"$listed") -ne 1 ]]; then
  echo "FAIL: more than one tunnelfix.fleet visible:"; echo "$listed"; exit 1
fi
echo "ok   ansible-galaxy collection list: tunnelfix.fleet only in the empty collections path"
python "$repo/tests/build/check_docs.py" "$work/collections"
ansible-playbook -i localhost, -e "tfb_collections_path=$work/collections" \
  "$repo/tests/build/fqcn_playbook.yml" > "$work/play.log" 2>&1 \
  || { echo "FAIL: tests/build/fqcn_playbook.yml against the installed artifact:"; cat "$work/play.log"; exit 1; }
grep -q 'localhost *: ok=5 .*failed=0 .*rescued=1' "$work/play.log" \
  || { echo "FAIL: unexpected play recap:"; cat "$work/play.log"; exit 1; }
# Our plugins, roles and playbooks warn about nothing on a clean run, on every ansible-core of the matrix.
if grep -E '\[(DEPRECATION )?WARNING\]' "$work/play.log"; then
  echo "FAIL: tests/build/fqcn_playbook.yml printed the warnings above ($(ansible --version | sed -n 1p))"; exit 1
fi
echo "ok   tests/build/fqcn_playbook.yml: $(grep -o 'ok=5.*' "$work/play.log" | tr -s ' ')"
echo "PASS: $(basename "$artifact") installs into an empty collections path; docs render; FQCN playbook passes"
