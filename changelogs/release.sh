#!/usr/bin/env bash
# (Re)generate CHANGELOG.rst and changelogs/changelog.yaml from every fragment in
# changelogs/fragments/, for the version in galaxy.yml. Rerun it after adding a fragment:
# the release is updated in place (antsibull-changelog release on an existing version adds the new
# fragments; keep_fragments: true keeps the fragment files as the source). The date is the one
# already recorded for that version, else today (UTC), or TF_RELEASE_DATE.
# Usage: changelogs/release.sh [TREE]   (default: this repository; tests/build/check_changelog.sh
#        runs it on a copy and compares)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tree="${1:-$here}"
antsibull="${ANTSIBULL_CHANGELOG:-$here/.venv/bin/antsibull-changelog}"
cd "$tree"
version="$(sed -n 's/^version: *//p' galaxy.yml | tr -d "\"'")"
recorded="$("$here/.venv/bin/python" - "$version" <<'PY'
import sys
import yaml
with open("changelogs/changelog.yaml") as f:
    data = yaml.safe_load(f) or {}
print(((data.get("releases") or {}).get(sys.argv[1]) or {}).get("release_date") or "")
PY
)"
date="${TF_RELEASE_DATE:-${recorded:-$(date -u +%F)}}"
# --reload-plugins: list plugins and roles added since the last run under "New ...".
# Rerunning on a released version warns "already exists" and, as the summary fragment is already
# known, "no release_summary": both are expected then.
out="$("$antsibull" release --version "$version" --date "$date" --reload-plugins 2>&1)"
if [[ -n "$recorded" ]]; then
  out="$(grep -v -e 'already exists' -e 'Found no release_summary' <<<"$out" || true)"
fi
[[ -z "${out//[[:space:]]/}" ]] || echo "$out"
# The plugin cache is rebuilt on every run (--reload-plugins): nothing to keep.
rm -f changelogs/.plugin-cache.yaml
