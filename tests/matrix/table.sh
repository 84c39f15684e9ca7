#!/usr/bin/env bash
# The ansible-core matrix as a Markdown table (release x check -> result and seconds), from the
# .cache/matrix/<version>.tsv files tests/matrix/run.sh wrote. Fails when a leg is missing or failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
rc=0
echo "| ansible-core | Python | sanity | unit | build/install/doc/FQCN | README install |"
echo "|---|---|---|---|---|---|"
for core in 2.19 2.20 2.21; do
  file=.cache/matrix/$core.tsv
  if [[ ! -s $file ]]; then
    echo "| $core | - | not run | not run | not run | not run |"; rc=1; continue
  fi
  venv=.venv-ansible-$core
  [[ $core == 2.19 ]] && venv=.venv
  python=$("$venv/bin/python" -c 'import platform; print(platform.python_version())' 2>/dev/null || echo "?")
  row="| $(cut -f2 "$file" | head -n 1) | $python |"
  for name in sanity unit build readme; do
    cell=$(awk -F'\t' -v n="$name" '$3 == n {print $4 " (" $5 " s)"}' "$file")
    if [[ $name == readme && $core == 2.20 ]]; then
      cell="- (the README names 2.19 and 2.21)"
    elif [[ $cell != PASS* ]]; then
      rc=1
    fi
    row+=" ${cell:-not run} |"
  done
  echo "$row"
done
exit "$rc"
