#!/usr/bin/env bash
# make build: the collection as users get it.
#   check_artifact.sh   build (scripts/build_collection.sh: tracked files, scanned); the artifact's contents;
#                       install; resolve a module; secrets planted in a scratch repository
#                       (check_planted_secrets.sh) stay out or fail the build, named
#   check_install.sh    install into an EMPTY collections path, a config that cannot see this tree:
#                       ansible-doc of every plugin and role entry point (check_docs.py) and a
#                       playbook using only FQCNs (fqcn_playbook.yml)
#   check_changelog.sh  fragments lint clean; CHANGELOG.rst is what changelogs/release.sh generates
set -euo pipefail
cd "$(dirname "$0")"
start=$SECONDS
./check_artifact.sh
./check_install.sh | grep -v '^ok   [a-z]* tunnelfix\.fleet\.'
./check_changelog.sh
echo "build checks: 3 passed, 0 failed ($((SECONDS - start)) s)"
