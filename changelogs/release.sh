#!/usr/bin/env bash
# make release: record the pending fragments of changelogs/fragments/ as the release galaxy.yml names, then
# write CHANGELOG.rst. One version is one release, built once: the version must be new, neither released nor older
# than the last release (scripts/release_state.py --before-release, checked before anything is written; raise it in
# galaxy.yml first). keep_fragments: true keeps the fragment files; changelogs/changelog.yaml says
# which release shipped each. The date is today (UTC) or TF_RELEASE_DATE.
# make changelog (changelogs/release.sh --generate [TREE]): CHANGELOG.rst again from changelogs/changelog.yaml,
# nothing released (tests/build/check_changelog.sh runs it on a copy and compares).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
antsibull="${ANTSIBULL_CHANGELOG:-$here/.venv/bin/antsibull-changelog}"
python="${TF_PYTHON:-$here/.venv/bin/python}"
if [[ ${1:-} == --generate ]]; then
  cd "${2:-$here}"
  "$antsibull" generate
  rm -f changelogs/.plugin-cache.yaml
  exit 0
fi
cd "${1:-$here}"
# Before anything is written: the version must be new (neither released nor older than the last release).
if ! check=$("$python" "$here/scripts/release_state.py" --before-release .); then
  echo "changelogs/release.sh: $check" >&2
  exit 1
fi
version="$("$python" -c 'import yaml; print(yaml.safe_load(open("galaxy.yml", encoding="utf-8"))["version"])')"
# --reload-plugins: list the plugins and roles added since the last release under "New ...".
"$antsibull" release --version "$version" --date "${TF_RELEASE_DATE:-$(date -u +%F)}" --reload-plugins
rm -f changelogs/.plugin-cache.yaml
"$python" "$here/scripts/release_state.py" .
