#!/usr/bin/env bash
# The README's controller install, run as written (its ```sh block that starts with "# in this
# checkout"), on a Debian 12 controller (Debian's Python 3.11 -> the ansible-core 2.19 line) or a
# current one (Python 3.13 -> the commented ansible-core 2.21 line, uncommented).
#
# Usage: tests/matrix/readme_install.sh 2.19|2.21
#
# Changed only where a test must: HOME is a temporary directory (so ~/tunnelfix-venv and
# ~/.ansible/collections are new and empty), `python3` is the leg's interpreter, and the block's
# last command runs against a one-host inventory whose SSH port on 127.0.0.1 is closed: diagnose
# must start from the installed collection, find the host unreachable, say so and print no warning.
# pip downloads from PyPI, as on a user's controller.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
core=${1:?usage: tests/matrix/readme_install.sh 2.19|2.21}
case "$core" in
  2.19) python=/usr/bin/python3 ;;
  2.21) python=$(.venv-ansible-2.21/bin/python -c 'import sys, os; print(os.path.realpath(sys.executable))') ;;
  *) echo "readme_install: the README names 2.19 and 2.21, not '$core'" >&2; exit 2 ;;
esac

block=$(awk '/^```sh$/ {inblock = 1; text = ""; next} inblock && /^```$/ {if (text ~ /^# in this checkout/) {printf "%s", text; exit}; inblock = 0; next} inblock {text = text $0 "\n"}' README.md)
[[ -n "$block" ]] || { echo "FAIL: README.md has no \`\`\`sh block starting with '# in this checkout'"; exit 1; }
if [[ $core == 2.21 ]]; then
  # The commented alternative replaces the Debian 12 line.
  block=$(sed -e "/pip install 'ansible-core==2\.19\./d" -e "s|^#   \(python3 -m venv .*'ansible-core==2\.21\.\)|\1|" <<<"$block")
fi
grep -q "pip install 'ansible-core==$core\." <<<"$block" \
  || { echo "FAIL: the README's block has no uncommented pip install of ansible-core $core:"; echo "$block"; exit 1; }

work=$(mktemp -d /tmp/tf-readme.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/bin"
ln -s "$python" "$work/bin/python3"
printf 'all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n        lnx-01: {ansible_host: 127.0.0.1, ansible_port: 1, ansible_user: root}\n' > "$work/inventory.yml"
while read -r var; do unset "$var"; done < <(compgen -e | grep '^ANSIBLE_' || true)
# The build runs in this checkout with its venv (the block's first command); the rest in an empty
# directory as a user would, with only the README's venv for Ansible.
script="set -euo pipefail
cd '$repo'
$(sed -n '1,/^ansible-galaxy collection build$/p' <<<"$block")
mv tunnelfix-fleet-*.tar.gz '$work/'
cd '$work'
$(sed '1,/^ansible-galaxy collection build$/d' <<<"$block")"
echo "== the README's controller install for ansible-core $core ($("$python" -V)), run as:"
while IFS= read -r line; do echo "   $line"; done <<<"$script"
rc=0
HOME=$work/home PATH="$work/bin:$repo/.venv/bin:/usr/sbin:/usr/bin:/sbin:/bin" ANSIBLE_NOCOLOR=1 \
  bash -c "$script" > "$work/out.log" 2>&1 || rc=$?
version=$("$work/home/tunnelfix-venv/bin/ansible" --version 2>/dev/null | head -n 1 || true)
if [[ $version != *"core $core."* ]]; then
  echo "FAIL: the README's venv has '$version', not ansible-core $core:"; tail -n 30 "$work/out.log"; exit 1
fi
if ! grep -q "Failed to connect to the host via ssh" "$work/out.log" || grep -qE 'Traceback|ERROR! ' "$work/out.log"; then
  echo "FAIL: diagnose from the installed collection did not run to the unreachable host (rc $rc):"
  tail -n 40 "$work/out.log"; exit 1
fi
if grep -E '\[(DEPRECATION )?WARNING\]' "$work/out.log"; then
  echo "FAIL: the README's install or diagnose printed the warnings above"; exit 1
fi
echo "PASS: README install as written: $version, tunnelfix.fleet.diagnose ran from ~/.ansible/collections (rc $rc: the host is unreachable, as planned)"
