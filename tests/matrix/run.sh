#!/usr/bin/env bash
# One leg of the ansible-core test matrix: the collection's checks on one ansible-core release.
#
# Usage: tests/matrix/run.sh 2.19|2.20|2.21 [CHECK...]   (CHECK: sanity unit build readme; default all)
#
#   2.19  .venv (scripts/bootstrap.sh: Debian 12's Python 3.11)
#   2.20  .venv-ansible-2.20 (scripts/matrix_venv.sh: Python 3.12)
#   2.21  .venv-ansible-2.21 (scripts/matrix_venv.sh: Python 3.13)
#
# Checks, in this order, each run even when an earlier one failed:
#   sanity  ansible-test sanity of that release, no ignore file (tests/sanity/run.sh)
#   unit    the unit tests on that release's interpreter and ansible-core (their playbook tests run
#           that venv's ansible-playbook)
#   build   ansible-galaxy collection build -> install into an empty path with no version override ->
#           ansible-doc of every plugin and role entry point -> the FQCN playbook, failing on any
#           warning or deprecation line (tests/build/check_artifact.sh, check_install.sh)
#   readme  (2.19 and 2.21, the two the README names) its controller install run as written, with
#           pip from PyPI, then diagnose from the installed collection (tests/matrix/readme_install.sh)
# Each check's result goes to .cache/matrix/<version>.tsv (version, check, PASS/FAIL, seconds) for
# tests/matrix/table.sh (a run of some checks replaces only their lines); the leg exits non-zero when any
# check of this run failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

core=${1:?usage: tests/matrix/run.sh ANSIBLE_CORE_VERSION (2.19, 2.20 or 2.21)}
case "$core" in
  2.19) venv=.venv ;;
  2.20|2.21) venv=.venv-ansible-$core; scripts/matrix_venv.sh "$core" ;;
  *) echo "tests/matrix/run.sh: no leg for ansible-core '$core' (2.19, 2.20, 2.21)" >&2; exit 2 ;;
esac
got=$("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)')
[[ "$got" == "$core".* ]] || { echo "FAIL: $venv has ansible-core $got, not $core" >&2; exit 1; }

shift
checks=("$@")
((${#checks[@]})) || checks=(sanity unit build readme)
results=.cache/matrix/$core.tsv
mkdir -p .cache/matrix
touch "$results"
for name in "${checks[@]}"; do
  grep -v -P "^[^\t]*\t[^\t]*\t${name}\t" "$results" > "$results.tmp" || true
  mv "$results.tmp" "$results"
done
failed=0
export PATH="$PWD/$venv/bin:$PATH" TUNNELFIX_VENV=$venv TUNNELFIX_BUILD_DIR=.cache/matrix/$core-build

check() {
  local name=$1 start=$SECONDS rc=0
  shift
  echo "== ansible-core $got: $name"
  "$@" || rc=$?
  local verdict=PASS
  ((rc == 0)) || { verdict=FAIL; failed=1; }
  printf '%s\t%s\t%s\t%s\t%s\n' "$core" "$got" "$name" "$verdict" "$((SECONDS - start))" >> "$results"
  echo "== ansible-core $got: $name: $verdict ($((SECONDS - start)) s)"
}

for name in "${checks[@]}"; do
  case "$name" in
    sanity) check sanity tests/sanity/run.sh ;;
    unit) check unit "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/unit ;;
    build) check build bash -o pipefail -c \
             'tests/build/check_artifact.sh && tests/build/check_install.sh | grep -v "^ok   [a-z]* tunnelfix\.fleet\."' ;;
    readme) [[ $core == 2.20 ]] || check readme tests/matrix/readme_install.sh "$core" ;;
    *) echo "tests/matrix/run.sh: no check '$name' (sanity, unit, build, readme)" >&2; exit 2 ;;
  esac
done
exit "$failed"
