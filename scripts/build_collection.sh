#!/usr/bin/env bash
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# Build the collection artifact tunnelfix-fleet-<version>.tar.gz. This is the one way to build it: make build,
# ee/build.sh and the README all use it.
#
#   scripts/build_collection.sh [OUTPUT_DIR]      (default OUTPUT_DIR: the checkout's root; made if missing)
#
# 1. Only what git tracks: the files `git ls-files` lists, as they are in the working tree (edits included;
#    tracked files deleted from the working tree left out), are copied to a temporary directory. Untracked
#    and ignored files (an inventory, keys, a vault file, bench/ or lab/ state left in the checkout) never
#    reach the build, nor does a tracked file that a .gitignore ignores (added with git add -f, or before the
#    ignore rule): it is named on stderr. The checkout is the one this script sits in, whatever GIT_DIR,
#    GIT_WORK_TREE or GIT_INDEX_FILE say (a git hook sets them). Outside a git checkout of this repository it
#    fails, saying so.
# 2. ansible-galaxy collection build there: galaxy.yml's manifest is an allow-list with excludes for
#    inventory-shaped paths (ansible-galaxy needs the distlib library for it, next to ansible-core).
# 3. scripts/scan_artifact.py on the artifact (python3 from PATH, with PyYAML: ansible-core brings it):
#    paths outside the allow-list, inventory-shaped paths, and secrets (keys, tokens, passwords in variables).
#    On any problem nothing is left in OUTPUT_DIR (an artifact of the same name from an earlier build is
#    removed as well: it is not what this tree builds); each problem is printed to stderr naming the file,
#    the line and the kind of secret, never the value; exit 1.
# On success: one line on stdout naming the artifact's path, exit 0. Other failures (no git, no
# ansible-galaxy, a build error) exit 1 with the reason on stderr.
#
# Needs on PATH: git, tar, ansible-galaxy, python3 (e.g. PATH=~/tunnelfix-venv/bin:$PATH with
# ansible-core, netaddr and distlib installed there).
set -euo pipefail

fail() { printf 'build_collection.sh: %s\n' "$*" >&2; exit 1; }

[[ $# -le 1 ]] || { echo "usage: scripts/build_collection.sh [OUTPUT_DIR]" >&2; exit 2; }
# git reads these before -C: a hook's (or a caller's) would make it list another repository's or index's files.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR GIT_OBJECT_DIRECTORY GIT_NAMESPACE GIT_PREFIX
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
out=${1:-$root}
mkdir -p "$out" || fail "cannot make the output directory $out"
out=$(cd "$out" && pwd -P)

command -v git >/dev/null || fail "git is not on PATH: the artifact is built from the files git tracks"
command -v ansible-galaxy >/dev/null \
  || fail "ansible-galaxy is not on PATH: put the bin/ of the venv with ansible-core first (PATH=~/tunnelfix-venv/bin:\$PATH)"
command -v python3 >/dev/null || fail "python3 is not on PATH (the scan runs on it)"
python3 -c 'import yaml' 2>/dev/null \
  || fail "python3 on PATH ($(command -v python3)) has no PyYAML: put the bin/ of the venv with ansible-core first (PATH=~/tunnelfix-venv/bin:\$PATH)"
top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) \
  || fail "$root is not a git checkout: the artifact is built from the files git tracks; build in a clone (git clone ...)"
[[ $(cd "$top" && pwd -P) == "$root" ]] \
  || fail "$root is not the root of its own git checkout (it sits inside $top): build in a clone of this repository"

work=$(mktemp -d "${TMPDIR:-/tmp}/tunnelfix-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/src" "$work/dist"
# Tracked files a .gitignore (or .git/info/exclude, core.excludesFile) ignores: left out, named.
declare -A ignored=()
while IFS= read -r -d '' f; do ignored[$f]=1; done < <(git -C "$root" ls-files -z --cached --ignored --exclude-standard)
# Tracked paths that exist in the working tree (a regular file, or a link: the scan refuses links).
(cd "$root" && git ls-files -z | while IFS= read -r -d '' f; do
  if [[ -z ${ignored[$f]:-} ]] && [[ -f $f || -L $f ]]; then printf '%s\0' "$f"; fi
done | tar --null -T - -cf -) | tar -xf - -C "$work/src"
if ((${#ignored[@]})); then
  mapfile -t names < <(printf '%s\n' "${!ignored[@]}" | sort)
  printf 'build_collection.sh: left out %d tracked file(s) that git ignores (.gitignore): %s\n' "${#names[@]}" "${names[*]}" >&2
fi

if ! ansible-galaxy collection build --output-path "$work/dist" "$work/src" > "$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  if grep -q distlib "$work/build.log"; then
    echo "build_collection.sh: install distlib into the Python that runs ansible-galaxy (e.g. ~/tunnelfix-venv/bin/pip install distlib)" >&2
  fi
  fail "ansible-galaxy collection build failed (output above)"
fi
grep -v '^Created collection for ' "$work/build.log" >&2 || true
artifacts=("$work"/dist/*.tar.gz)
[[ ${#artifacts[@]} -eq 1 && -f ${artifacts[0]} ]] || fail "ansible-galaxy collection build made no single artifact"
name=$(basename "${artifacts[0]}")

rc=0
scan=$(python3 "$root/scripts/scan_artifact.py" "${artifacts[0]}" "$work/src/galaxy.yml") || rc=$?
if ((rc != 0)); then
  rm -f "${artifacts[0]}"
  stale=""
  if [[ -e $out/$name ]]; then rm -f "$out/$name"; stale=" (and removed the earlier $out/$name)"; fi
  printf '%s\n' "$scan" >&2
  fail "$name failed the scan (problems above): not written to $out$stale; take the secret (or the inventory file) out of the collection's tree (a placeholder such as <password>, YOUR_PASSWORD or \"{{ vault_password }}\" passes), or the file out of git (git rm --cached FILE); a secret that was ever committed stays in git history: rotate it"
fi
mv -f "${artifacts[0]}" "$out/$name"
echo "built $out/$name from the files git tracks (scan: ${scan%% passed*} files, no secret, no inventory path)"
