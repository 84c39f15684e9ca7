#!/usr/bin/env bash
# Render reports/report.html from the committed fixtures through playbooks/report.yml (the real
# filters), open it in headless Chromium (Debian's package, requirements-apt.txt), dump the DOM,
# take a screenshot, and check both with check.py. Output in .cache/report_browser/.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$PWD/.cache/report_browser
rm -rf "$out"
mkdir -p "$out"
cp tests/report_browser/fixtures/*.json "$out/"

ansible-playbook -i tests/report_browser/fixtures/inventory.yml playbooks/report.yml \
  -e "tunnel_measure_report_dir=$out" > "$out/ansible-playbook.log" \
  || { cat "$out/ansible-playbook.log"; exit 1; }

# --no-sandbox: runs as root; a profile of its own, not ~/.config/chromium; the screenshot shows
# only the page (no scrollbars), 1200x3400 CSS pixels at scale 1 (the findings, the tunnel graph and the charts).
# shellcheck disable=SC2054 # 1200,3400 is one argument (chromium's width,height), not two elements
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,3400
  --user-data-dir="$out/chromium-profile")
timeout 120 chromium "${flags[@]}" --screenshot="$out/report.png" "file://$out/report.html" 2> "$out/chromium-screenshot.log" \
  || { cat "$out/chromium-screenshot.log"; exit 1; }
timeout 120 chromium "${flags[@]}" --dump-dom "file://$out/report.html" > "$out/report.dom.html" 2> "$out/chromium-dom.log" \
  || { cat "$out/chromium-dom.log"; exit 1; }

python tests/report_browser/check.py "$out"
echo "report-browser-test: ok (screenshot: ${out#"$PWD"/}/report.png)"
