#!/usr/bin/env bash
# Changelog checks (antsibull-changelog, pinned in requirements.txt):
#   1. antsibull-changelog lint: every fragment in changelogs/fragments/ and changelog.yaml are valid
#   2. CHANGELOG.rst is what `make changelog` (antsibull-changelog generate) writes from changelogs/changelog.yaml:
#      it runs on a copy of the files git does not ignore and the results are compared.
#   3. scripts/release_state.py: galaxy.yml's version is not the last release while fragments are pending (a
#      change under a version users already have), nor older than it.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
export PATH="$repo/.venv/bin:$PATH"
lint=$(antsibull-changelog lint 2>&1) || { echo "FAIL: antsibull-changelog lint:"; echo "$lint"; exit 1; }
if [[ -n "$lint" ]]; then echo "FAIL: antsibull-changelog lint:"; echo "$lint"; exit 1; fi
echo "ok   antsibull-changelog lint: $(find changelogs/fragments -name '*.y*ml' | wc -l) fragments"
[[ -f CHANGELOG.rst ]] || { echo "FAIL: no CHANGELOG.rst; run make changelog"; exit 1; }
work=$(mktemp -d /tmp/tf-changelog.XXXXXX)
trap 'rm -rf "$work"' EXIT
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -xf - -C "$work"
else
  tar --exclude=.venv --exclude=.cache --exclude=.git -cf - . | tar -xf - -C "$work"
fi
ANTSIBULL_CHANGELOG="$repo/.venv/bin/antsibull-changelog" changelogs/release.sh --generate "$work" >/dev/null
stale=0
for f in CHANGELOG.rst changelogs/changelog.yaml; do
  if ! diff -u "$f" "$work/$f" > "$work/diff.txt"; then
    echo "FAIL: $f is not what make changelog generates from changelogs/changelog.yaml (diff: committed -> generated):"
    head -n 40 "$work/diff.txt"
    stale=1
  fi
done
if ((stale)); then echo "Regenerate with: make changelog"; exit 1; fi
echo "ok   CHANGELOG.rst and changelogs/changelog.yaml are up to date ($(grep -c '^- ' CHANGELOG.rst) entries)"
"$repo/.venv/bin/python" scripts/release_state.py "$repo"
echo "PASS: changelog fragments lint clean; CHANGELOG.rst up to date; galaxy.yml's version is not a released one with changes pending"
