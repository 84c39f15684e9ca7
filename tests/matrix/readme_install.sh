#!/usr/bin/env bash
# The README's three controller installs, run as written (its ```sh blocks that start with "# in a clone of
# this repository", "# 2. or straight from git" and "# 3. or through a requirements.yml"), on a Debian 12
# controller (Debian's Python 3.11 -> the ansible-core 2.19 line) or a current one (Python 3.13 -> the commented
# ansible-core 2.21 line, uncommented).
#
# Usage: tests/matrix/readme_install.sh 2.19|2.21
#
# Changed only where a test must: the clone is a fresh `git clone` of this checkout's HEAD (committed files, as
# a user gets them), HOME is a temporary directory (so ~/tunnelfix-venv and ~/.ansible/collections are new) with
# ~/fleet holding a one-host inventory whose SSH port on 127.0.0.1 is closed (diagnose must start from the
# installed collection, find the host unreachable, say so and print no warning), `python3` is the leg's
# interpreter, and PATH has no venv of this checkout (pip downloads from PyPI, as on a user's controller).
# Before block 1 a 0.1.0 of the collection is installed in ~/.ansible/collections: block 1 must upgrade it to
# galaxy.yml's version without --force. Blocks 2 and 3 each start from an empty ~/.ansible/collections.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
core=${1:?usage: tests/matrix/readme_install.sh 2.19|2.21}
case "$core" in
  2.19) python=/usr/bin/python3 ;;
  2.21) python=$(.venv-ansible-2.21/bin/python -c 'import sys, os; print(os.path.realpath(sys.executable))') ;;
  *) echo "readme_install: the README names 2.19 and 2.21, not '$core'" >&2; exit 2 ;;
esac

# The ```sh block of README.md whose first line starts with $1.
readme_block() {
  awk -v first="$1" '/^```sh$/ {inblock = 1; text = ""; next}
    inblock && /^```$/ {if (index(text, first) == 1) {printf "%s", text; exit}; inblock = 0; next}
    inblock {text = text $0 "\n"}' README.md
}
declare -A first_line=([install]="# in a clone of this repository" [git]="# 2. or straight from git"
  [requirements]="# 3. or through a requirements.yml")
declare -A blocks
for name in install git requirements; do
  blocks[$name]=$(readme_block "${first_line[$name]}")
  [[ -n ${blocks[$name]} ]] || { echo "FAIL: README.md has no \`\`\`sh block starting with '${first_line[$name]}'"; exit 1; }
done
install_block=${blocks[install]}
if [[ $core == 2.21 ]]; then
  # The commented alternative replaces the Debian 12 line.
  install_block=$(sed -e "/pip install 'ansible-core==2\.19\./d" -e "s|^#   \(.*pip install 'ansible-core==2\.21\.\)|\1|" <<<"$install_block")
fi
grep -q "^[^#]*pip install 'ansible-core==$core\..*distlib" <<<"$install_block" \
  || { echo "FAIL: the README's block has no uncommented pip install of ansible-core $core with distlib:"; echo "$install_block"; exit 1; }

work=$(mktemp -d /tmp/tf-readme.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home/fleet" "$work/bin"
ln -s "$python" "$work/bin/python3"
git clone -q "$repo" "$work/clone"
version=$(sed -n 's/^version: *//p' "$work/clone/galaxy.yml" | tr -d "\"'")
printf 'all:\n  children:\n    tunnelfix_wireguard_peers:\n      hosts:\n        lnx-01: {ansible_host: 127.0.0.1, ansible_port: 1, ansible_user: root}\n' \
  > "$work/home/fleet/inventory.yml"
collection=$work/home/.ansible/collections/ansible_collections/tunnelfix/fleet
installed_version() { sed -n 's/^ *"version": "\(.*\)",*$/\1/p' "$collection/MANIFEST.json" 2>/dev/null | head -n 1; }
while read -r var; do unset "$var"; done < <(compgen -e | grep '^ANSIBLE_' || true)

# A 0.1.0 installed first: what a user of the old version has.
mkdir -p "$work/old"
git -C "$work/clone" archive HEAD | tar -x -C "$work/old"
sed -i 's/^version: .*/version: 0.1.0/' "$work/old/galaxy.yml"
(cd "$work" && HOME=$work/home "$repo/.venv/bin/ansible-galaxy" collection build --output-path "$work/old-dist" "$work/old" >/dev/null \
  && HOME=$work/home "$repo/.venv/bin/ansible-galaxy" collection install -p "$work/home/.ansible/collections" \
       "$work"/old-dist/tunnelfix-fleet-0.1.0.tar.gz >/dev/null)
[[ $(installed_version) == 0.1.0 ]] || { echo "FAIL: the 0.1.0 to upgrade from did not install"; exit 1; }

# run_block NAME TEXT: the block in a new shell in the clone, as the README says; its output in $work/NAME.log.
run_block() {
  local name=$1 text=$2 rc=0
  echo "== README block '$name' for ansible-core $core ($("$python" -V)), run as written:"
  while IFS= read -r line; do echo "   $line"; done <<<"$text"
  (cd "$work/clone" && HOME=$work/home PATH="$work/bin:/usr/sbin:/usr/bin:/sbin:/bin" ANSIBLE_NOCOLOR=1 \
    bash -c "set -euo pipefail
$text") > "$work/$name.log" 2>&1 || rc=$?
  if grep -E '\[(DEPRECATION )?WARNING\]' "$work/$name.log"; then
    echo "FAIL: the README's $name printed the warnings above"; exit 1
  fi
  if grep -qE 'Traceback|ERROR! ' "$work/$name.log"; then echo "FAIL: $name:"; tail -n 40 "$work/$name.log"; exit 1; fi
  return "$rc"
}

rc=0
run_block install "$install_block" || rc=$?
got=$("$work/home/tunnelfix-venv/bin/ansible" --version 2>/dev/null | head -n 1 || true)
if [[ $got != *"core $core."* ]]; then
  echo "FAIL: the README's venv has '$got', not ansible-core $core:"; tail -n 30 "$work/install.log"; exit 1
fi
if ! grep -q "Failed to connect to the host via ssh" "$work/install.log"; then
  echo "FAIL: diagnose from the installed collection did not run to the unreachable host (rc $rc):"
  tail -n 40 "$work/install.log"; exit 1
fi
[[ $(installed_version) == "$version" ]] \
  || { echo "FAIL: block 1 left tunnelfix.fleet $(installed_version) installed, not $version (no upgrade from 0.1.0 without --force)"; exit 1; }
grep -q "^built .*tunnelfix-fleet-$version.tar.gz" "$work/install.log" \
  || { echo "FAIL: scripts/build_collection.sh did not say it built tunnelfix-fleet-$version.tar.gz:"; cat "$work/install.log"; exit 1; }
echo "ok   1. artifact: $got, 0.1.0 -> $version without --force, diagnose ran from ~/.ansible/collections (rc $rc: the host is unreachable, as planned)"

for way in git requirements; do
  rm -rf "$collection"
  run_block "$way" "${blocks[$way]}" || { echo "FAIL: the README's $way install failed:"; tail -n 30 "$work/$way.log"; exit 1; }
  [[ $(installed_version) == "$version" ]] || { echo "FAIL: the $way install left '$(installed_version)', not $version:"; tail -n 20 "$work/$way.log"; exit 1; }
  doc=$(cd "$work/home/fleet" && HOME=$work/home "$work/home/tunnelfix-venv/bin/ansible-doc" tunnelfix.fleet.iperf3 2>&1 | head -n 1)
  [[ $doc == *"tunnelfix.fleet.iperf3"* ]] || { echo "FAIL: after the $way install ansible-doc says: $doc"; exit 1; }
  echo "ok   $way: tunnelfix.fleet $version installed, ansible-doc resolves its modules"
done
echo "PASS: the README's three installs as written on ansible-core $core: artifact (upgrading 0.1.0), git, requirements.yml"
