#!/usr/bin/env bash
# `ansible-test sanity` on this collection, with no ignore file (tests/sanity/ignore-*.txt must not exist).
#
# Usage: tests/sanity/run.sh [ansible-test sanity options, e.g. --test pylint]
# ansible-test wants the collection at .../ansible_collections/tunnelfix/fleet: the git-tracked and
# untracked-but-not-ignored files of this tree are copied to a fresh temporary directory of that
# shape (outside the tree, so ansible-test lists the files itself instead of asking this repository's
# git, whose .gitignore would hide them), and the default sanity tests run there on the venv's Python
# (.venv: Debian 12's 3.11 and ansible-core 2.19; TUNNELFIX_VENV=.venv-ansible-2.21 runs that matrix
# leg's ansible-test on its Python, tests/matrix/run.sh).
#
# Each sanity test that needs packages gets a virtual environment, and ansible-test starts it with a
# pip bootstrap script it downloads from ci-files.testing.ansible.com. That host is not needed here:
# a stand-in of that script (get_pip_<version>.py in ansible-test's cache, the place its error
# message names) runs pip from a pip wheel that `pip download` fetched through the usual pip
# configuration. ansible-test runs with HOME=.cache/sanity/home, so the stand-in, the virtual
# environments (reused by later runs) and pip's cache stay in this tree's .cache.
# Exits non-zero when any sanity test fails. First run about 2 min (package downloads), later runs
# about 1 min on 2 shared cores.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${TUNNELFIX_VENV:-.venv}"
VENV_BIN="${REPO}/${VENV}/bin"
PYTHON_VERSION="$("${VENV_BIN}/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
STATE="${REPO}/.cache/sanity/${VENV}"
SANITY_HOME="${STATE}/home"
WHEELS="${STATE}/wheels"

if compgen -G "${REPO}/tests/sanity/ignore*.txt" >/dev/null; then
  echo "FAIL tests/sanity has an ignore file; fix the code instead" >&2
  exit 1
fi

# ansible-test skips its shellcheck test with only a warning when shellcheck is missing.
command -v shellcheck >/dev/null || { echo "FAIL shellcheck is not installed (requirements-apt.txt)" >&2; exit 1; }

# The pip version ansible-test bootstraps into its virtual environments (get_venv_packages).
pip_version="$("${VENV_BIN}/python" -c 'from ansible_test._internal.python_requirements import get_venv_packages as g
from ansible_test._internal.host_configs import NativePythonConfig as P
print(g(P(version="'"${PYTHON_VERSION}"'"))["pip"])')"
get_pip="${SANITY_HOME}/.ansible/test/cache/get_pip_${pip_version//./_}.py"
mkdir -p "${WHEELS}" "$(dirname "${get_pip}")"
if ! compgen -G "${WHEELS}/pip-${pip_version}-*.whl" >/dev/null; then
  "${VENV_BIN}/pip" download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "${WHEELS}" "pip==${pip_version}"
fi
wheel="$(compgen -G "${WHEELS}/pip-${pip_version}-*.whl" | head -n 1)"
cat > "${get_pip}" <<EOF
"""Stand-in for ansible-test's get-pip bootstrap script, written by tests/sanity/run.sh.

ansible-test runs it as __main__ with pip install arguments ("pip==X.Y" and options) plus
--no-setuptools/--no-wheel (get-pip flags, not pip's); pip runs from the wheel below and finds
pip itself there too.
"""
import runpy
import sys

WHEEL = "${wheel}"
args = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
sys.path.insert(0, WHEEL)
sys.argv = ["pip", "install", "--find-links", "${WHEELS}"] + args
runpy.run_module("pip", run_name="__main__", alter_sys=True)
EOF

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tunnelfix-sanity.XXXXXX")"
trap 'rm -rf "${tmp}"' EXIT
collection="${tmp}/ansible_collections/tunnelfix/fleet"
mkdir -p "${collection}"
# Tracked files deleted in the working tree are left out (they would not be in a commit either).
(cd "${REPO}" && git ls-files -z -co --exclude-standard \
  | while IFS= read -r -d '' f; do [[ -e "$f" || -L "$f" ]] && printf '%s\0' "$f"; done \
  | tar --null -T - -cf -) | tar -xf - -C "${collection}"

cd "${collection}"
# This tree's ansible.cfg (collections_path to the tree itself) must not reach the copy.
unset ANSIBLE_CONFIG
rc=0
HOME="${SANITY_HOME}" "${VENV_BIN}/ansible-test" sanity --python "${PYTHON_VERSION}" --color no "$@" || rc=$?
exit "${rc}"
