#!/usr/bin/env bash
# Make the venv of one leg of the ansible-core test matrix: .venv-ansible-<version> from
# tests/matrix/requirements-ansible-<version>.txt (every version pinned). Safe to rerun: an
# up-to-date venv is left alone.
#
# Usage: scripts/matrix_venv.sh 2.20|2.21
#
# The 2.19 leg is the project's own .venv (scripts/bootstrap.sh, Debian 12's Python 3.11).
# ansible-core 2.20 and 2.21 need Python >= 3.12 on the controller, which Debian 12 does not
# package. The interpreter is, in this order: $TUNNELFIX_PYTHON_<major>_<minor> (a path), pythonX.Y
# on PATH (a pyenv shim that cannot run it is skipped), then pyenv's versions directory
# ($PYENV_ROOT or ~/.pyenv), then /usr/local/bin. None of them: the leg fails here, naming what was
# looked for and how to provide it; a leg is never skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

core=${1:?usage: scripts/matrix_venv.sh ANSIBLE_CORE_VERSION (2.20 or 2.21)}
case "$core" in
  2.20) python_version=3.12 ;;
  2.21) python_version=3.13 ;;
  *) echo "matrix_venv: no matrix leg for ansible-core '$core' (2.20, 2.21; 2.19 is .venv)" >&2; exit 2 ;;
esac
requirements=tests/matrix/requirements-ansible-$core.txt
venv=.venv-ansible-$core

# An interpreter that runs and is the wanted X.Y, or nothing.
runs_as_wanted() {
  [[ -n "$1" && -x "$1" ]] || return 1
  [[ "$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" == "$python_version" ]]
}

find_python() {
  local override_var="TUNNELFIX_PYTHON_${python_version/./_}" candidate
  if [[ -n "${!override_var:-}" ]]; then
    runs_as_wanted "${!override_var}" && { echo "${!override_var}"; return 0; }
    echo "matrix_venv: $override_var=${!override_var} is not a working Python $python_version" >&2
    return 1
  fi
  candidate=$(command -v "python$python_version" || true)
  if runs_as_wanted "$candidate"; then
    # A pyenv shim runs a different path each time: name the interpreter itself.
    "$candidate" -c 'import sys; print(sys.executable)'
    return 0
  fi
  for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$python_version".*/bin/"python$python_version" \
                   /usr/local/bin/"python$python_version"; do
    runs_as_wanted "$candidate" && { echo "$candidate"; return 0; }
  done
  return 1
}

if ! python=$(find_python); then
  cat >&2 <<EOF
matrix_venv: FAIL: the ansible-core $core leg needs Python $python_version on the controller, and none was found.
  Looked for: \$TUNNELFIX_PYTHON_${python_version/./_}, python$python_version on PATH, ${PYENV_ROOT:-$HOME/.pyenv}/versions/$python_version.*/bin, /usr/local/bin.
  Debian 12 has no package for it: install one (e.g. pyenv install $python_version) or point
  TUNNELFIX_PYTHON_${python_version/./_} at one, then run make test again.
EOF
  exit 1
fi

want="$(sha256sum "$requirements" | cut -d' ' -f1) $python"
if [[ ! -x "$venv/bin/python" || "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]]; then
  echo "matrix_venv: creating $venv with $python ($("$python" -V 2>&1)) from $requirements"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements" 2>&1 | { grep -v "^WARNING: Location" || true; }
  echo "$want" > "$venv/.requirements.sha256"
fi
# Read whole, then cut: `ansible --version | head -n 1` can end in a broken pipe (exit 250) under pipefail.
version=$("$venv/bin/ansible" --version)
echo "matrix_venv: $venv: ${version%%$'\n'*}"
