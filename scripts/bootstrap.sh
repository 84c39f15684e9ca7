#!/usr/bin/env bash
# Install what `make demo` and `make test` need on a fresh Debian 12 machine (run as root).
# Safe to rerun: packages already present and an up-to-date venv are left alone.
#   Debian packages: requirements-apt.txt (installed without recommends: wireguard-tools would
#                    otherwise pull a kernel image)
#   Python venv:     .venv from requirements.txt (every version pinned)
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t apt_packages < <(grep -Ev '^\s*(#|$)' requirements-apt.txt)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  apt-get update -qq
  # Start no service on install (invoke-rc.d asks /usr/sbin/policy-rc.d; 101 = not allowed): prometheus and
  # prometheus-node-exporter would otherwise listen on :9090 and :9100 for good; the tests run their own, on
  # loopback and in the lab's namespaces. An existing policy file is left as it is.
  policy=/usr/sbin/policy-rc.d
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\n# tunnelfix bootstrap: no service starts while it installs packages\nexit 101\n' > "$policy"
    chmod 0755 "$policy"
    trap 'rm -f "$policy"' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [[ ! -x .venv/bin/python || "$(cat .venv/.requirements.sha256 2>/dev/null)" != "$want" ]]; then
  echo "bootstrap: creating .venv from requirements.txt"
  # Debian's interpreter, named by path: a python3 earlier on PATH (pyenv, /usr/local) is not what
  # a fresh Debian 12 machine has.
  /usr/bin/python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt 2>&1 | { grep -v "^WARNING: Location" || true; }
  echo "$want" > .venv/.requirements.sha256
fi
# Make the repository importable as the collection tunnelfix.fleet (ansible.cfg collections_path).
mkdir -p .cache/collections/ansible_collections/tunnelfix
ln -sfn ../../../.. .cache/collections/ansible_collections/tunnelfix/fleet
echo "bootstrap: ok"
