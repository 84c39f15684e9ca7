#!/usr/bin/env bash
# Lab end-to-end check: fresh lab with the faults planted -> check mode changes nothing and shows
# no secret -> site.yml (-vvv) while a real Prometheus watches the textfiles (the keepalive alert fires
# after diagnose, clears after verify; tests/e2e/prometheus.sh) -> assert the before/after figures -> remediate.yml again must
# change nothing -> no private or preshared key in any result, diff, log or report -> no warning line.
# TUNNELFIX_VENV: the venv whose Ansible runs it (make e2e: .venv-ansible-2.21, the newest of the matrix).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${TUNNELFIX_VENV:-.venv}
export PATH="$PWD/$venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg" CONTAINERS_CONF="$PWD/lab/containers.conf"
inventory=lab/state/inventory.yml
log_dir=.cache/e2e
rm -rf "$log_dir" reports/measurements-*.json reports/health-checks-*.json reports/sweep-*.json reports/findings.json reports/outcomes.json reports/report.*
mkdir -p "$log_dir"
# Ansible prints warnings and deprecations on stderr: keep a copy for the check at the end.
exec 2> >(tee -a "$log_dir/stderr.txt" >&2)
echo "== $(ansible --version | sed -n 1p), $("$venv/bin/python" -V)"

lab/down.sh
lab/up.sh
# shellcheck source-path=SCRIPTDIR source=prometheus.sh
source tests/e2e/prometheus.sh   # prom_start, prom_stop, PROM_URL
trap prom_stop EXIT

# The route owrt's WireGuard endpoint takes (fault 1): `ip route get` over SSH, no Python.
endpoint_dev() {
  ansible -i "$inventory" owrt -m ansible.builtin.raw -a "ip route get $endpoint" \
    | sed -n 's/.* dev \([^ ]*\) .*/\1/p' | head -n 1
}
endpoint=198.51.100.1   # the hub (lab/common.sh HUB_WAN_IP)
dev=$(endpoint_dev)
echo "owrt: endpoint $endpoint via $dev before the fix"
[[ "$dev" == wwan0 ]] || { echo "FAIL: the planted endpoint route should use the 5G uplink wwan0, got '$dev'"; exit 1; }

# GSO/TSO/GRO that are on on owrt's br-lan and its port lan1 (fault 5): ethtool over SSH, no Python.
offloads_on() {
  ansible -i "$inventory" owrt -m ansible.builtin.raw -a "ethtool -k br-lan; ethtool -k lan1" \
    | grep -cE '^(generic-segmentation-offload|tcp-segmentation-offload|generic-receive-offload): on' || true
}
on=$(offloads_on)
echo "owrt: $on of gso/tso/gro on across br-lan and lan1 before the fix"
[[ "$on" -ge 2 ]] || { echo "FAIL: the planted bridge offloads should be on, $on found on"; exit 1; }

# Every result and diff of check mode as JSON; the -vvv log comes from site.yml below.
echo "== remediate.yml --check --diff on the faulty lab (results as JSON)"
ANSIBLE_STDOUT_CALLBACK=ansible.builtin.json ansible-playbook -i "$inventory" playbooks/remediate.yml \
  -e tunnelfix_remediate_all_roles=true \
  --check --diff > "$log_dir/remediate-check-diff.json"
grep -q "PersistentKeepalive = 5" "$log_dir/remediate-check-diff.json" \
  || { echo "FAIL: the check-mode diff does not show the keepalive line"; exit 1; }

echo "== a real Prometheus (rules: roles/prometheus_textfile/files/tunnelfix.rules.yml) scraping a real node_exporter per host"
prom_start "$log_dir/prometheus"

# site.yml's three playbooks one by one (site.yml only imports them), so Prometheus can be asked in between.
# The defaults but two: a 20 s idle window (over twice the NAT's 8 s UDP timeout, enough for the keepalive fault to
# show) and 10 s flows (the lab's shaped path settles within the 2 s omitted), which keeps make test under its limit.
echo "== site.yml with --diff, playbook by playbook (full log: $log_dir/site-vvv.log)"
: > "$log_dir/site-vvv.log"
for book in diagnose remediate verify; do
  if ! ansible-playbook -vvv --diff -i "$inventory" "playbooks/$book.yml" -e tunnelfix_prometheus_textfile=true \
      -e tunnel_measure_idle_s=20 -e tunnel_measure_iperf3_duration_s=10 >> "$log_dir/site-vvv.log"; then
    tail -80 "$log_dir/site-vvv.log"; exit 1
  fi
  if [[ "$book" == diagnose ]]; then
    echo "== Prometheus: the planted fault (peer without PersistentKeepalive) raises its alert from diagnose's textfile"
    python3 tests/e2e/prometheus_alerts.py --url "$PROM_URL" --until firing --alert TunnelfixKeepaliveOffOnNatedPeer \
      --label instance=peer --timeout 60
    python3 tests/e2e/prometheus_alerts.py --url "$PROM_URL" --until firing --timeout 5   # the list, for the log
  fi
done
echo "== Prometheus: after remediate and verify (textfiles rewritten) the alert clears, and no other is firing"
python3 tests/e2e/prometheus_alerts.py --url "$PROM_URL" --until clear --alert TunnelfixKeepaliveOffOnNatedPeer \
  --label instance=peer --timeout 60
python3 tests/e2e/prometheus_alerts.py --url "$PROM_URL" --until clear --timeout 30   # no other alert left
prom_stop
cat reports/before-after.txt
# The console's table is plain text: the .md keeps its HTML entities (hub -&gt; owrt), the .txt and the run's log do not.
grep -q -- '-&gt;' reports/before-after.md || { echo "FAIL: reports/before-after.md lost its entities (no '-&gt;')"; exit 1; }
if grep -n -- '&gt;\|&lt;\|&amp;' reports/before-after.txt; then echo "FAIL: HTML entities in the console's table (above)"; exit 1; fi
ansible-inventory -i "$inventory" --list > "$log_dir/inventory.json"
python3 tests/e2e/check_measurements.py reports "$log_dir/inventory.json"
dev=$(endpoint_dev)
echo "owrt: endpoint $endpoint via $dev after the fix"
[[ "$dev" == eth1 ]] || { echo "FAIL: after the fix the endpoint route should use the fibre uplink eth1, got '$dev'"; exit 1; }
on=$(offloads_on)
echo "owrt: $on of gso/tso/gro on across br-lan and lan1 after the fix"
[[ "$on" -eq 0 ]] || { echo "FAIL: after the fix no gso/tso/gro should be on on br-lan or lan1, $on are"; exit 1; }

echo "== findings: diagnose (inside site.yml) found exactly the planted faults"
python3 - reports/findings.json <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
found = sorted((f["host"], f["id"]) for f in doc["findings"])
if doc["hosts"] != ["hub", "owrt", "peer"] or sorted(doc["checks"]) != doc["hosts"]:
    sys.exit("FAIL: findings.json should judge exactly the run's hosts hub, owrt, peer: %s" % doc["hosts"])
planted = [("hub", "loss_sensitive_congestion_control"),
           ("owrt", "banip_icmp_limit_drops_health_checks"), ("owrt", "bridge_offload_small_mtu_tunnel"),
           ("owrt", "endpoint_route_pinned"),
           ("peer", "loss_sensitive_congestion_control"), ("peer", "nat_peer_without_keepalive")]
print("findings:", found)
sys.exit(0 if found == planted else "FAIL: findings differ from the planted faults %s" % planted)
PY

echo "== outcomes: verify (inside site.yml) re-ran the rules and every planted finding is fixed"
python3 - reports/outcomes.json <<'PY'
import json, sys
outcomes = sorted((o["host"], o["id"], o["outcome"]) for o in json.load(open(sys.argv[1])))
print("outcomes:", outcomes)
sys.exit(0 if len(outcomes) == 6 and all(o[2] == "fixed" for o in outcomes) else "FAIL: a planted finding is not fixed")
PY

echo "== the report: report.json has the sweep rows, report.html draws them (screenshot: $log_dir/report.png)"
python3 - reports <<'PY'
import json, sys
doc = json.load(open(sys.argv[1] + "/report.json"))
html = open(sys.argv[1] + "/report.html").read()
swept = sorted({row["host"] for row in doc["rows"] if row["test"] == "sweep conclusion"})
charted = [row for row in doc["rows"]
           if row.get("unit") and row.get("after_value") is not None and row.get("reference_value") is not None]
after_bars = html.count('class="bar after"')
print("hosts with sweep rows:", swept, "| rows with numbers:", len(charted), "| after bars drawn:", after_bars)
problems = [msg for ok, msg in ((swept == ["owrt", "peer"], "sweep rows for owrt and peer"),
                                (after_bars >= len(charted) > 10, "one after bar per row with a number and a reference"),
                                (len(doc.get("findings") or []) == 6, "the 6 findings"),
                                (all(f.get("outcome") == "fixed" for f in doc.get("findings") or []),
                                 "each finding's outcome (fixed) from reports/outcomes.json"),
                                (html.count('<td class="outcome">fixed</td>') == 6, "an after-verify cell per finding")) if not ok]
sys.exit("FAIL: report: " + ", ".join(problems) if problems else 0)
PY
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,4000 \
  --user-data-dir="$PWD/.cache/e2e-chromium-profile" --screenshot="$log_dir/report.png" "file://$PWD/reports/report.html" \
  2> "$log_dir/chromium.log" || { cat "$log_dir/chromium.log"; exit 1; }

echo "== Prometheus textfile: peer's keepalive and verified throughput, owrt's file (no Python there)"
ansible -i "$inventory" peer -m ansible.builtin.command -a "cat /var/lib/prometheus/node-exporter/tunnelfix.prom" \
  > "$log_dir/peer.prom"
ansible -i "$inventory" owrt -m ansible.builtin.raw -a "cat /var/prometheus/tunnelfix.prom" > "$log_dir/owrt.prom"
if ! { grep -E '^tunnelfix_wireguard_keepalive_enabled\{.*\} 1$' "$log_dir/peer.prom" \
       && grep -E '^tunnelfix_tunnel_verified_bits_per_second\{' "$log_dir/peer.prom" \
       && grep -E '^tunnelfix_wireguard_latest_handshake_timestamp_seconds\{' "$log_dir/owrt.prom"; }; then
  echo "FAIL: the Prometheus textfiles lack the keepalive, throughput or handshake series"; exit 1
fi

echo "== second run of remediate.yml must report changed=0"
ansible-playbook -i "$inventory" playbooks/remediate.yml > "$log_dir/remediate-again.log"
grep -E '^[a-z0-9_.-]+ +: ok=' "$log_dir/remediate-again.log"
if grep -E '^[a-z0-9_.-]+ +: ok=' "$log_dir/remediate-again.log" | grep -vq 'changed=0 '; then
  echo "FAIL: second remediate run changed something"; exit 1
fi
echo "PASS: second remediate run changed nothing"

echo "== diagnose.yml on the fixed lab finds nothing from its facts (reports to $log_dir/clean)"
# Facts only: the measured rules already ran on the fixed lab inside site.yml (verify re-runs every rule on fresh
# measurements, and the outcomes check above fails on a finding it calls new); a measuring diagnose here would
# repeat them for three minutes of make test.
ansible-playbook -i "$inventory" playbooks/diagnose.yml -e "tunnel_measure_report_dir=$PWD/$log_dir/clean" \
  -e "health_check_measure_report_dir=$PWD/$log_dir/clean" -e "tunnel_sweep_report_dir=$PWD/$log_dir/clean" \
  -e tunnelfix_measure=false -e tunnelfix_sweep=false > "$log_dir/diagnose-clean.log"
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["findings"]; print("findings on the fixed lab:", f); sys.exit(1 if f else 0)' \
  "$log_dir/clean/findings.json"

echo "== no private or preshared key in any result, diff, -vvv log or report"
ansible -vvv -i "$inventory" 'tunnelfix_wireguard_hubs:tunnelfix_wireguard_peers:!tunnelfix_openwrt' \
  -m tunnelfix.fleet.tunnel_facts > "$log_dir/tunnel-facts-vvv.log"
ansible -vvv -i "$inventory" tunnelfix_openwrt -m tunnelfix.fleet.openwrt_facts > "$log_dir/openwrt-facts-vvv.log"
# At default verbosity the facts themselves are printed (what a fact cache or an AWX job event keeps).
# lab/up.sh plants owrt's private key under a name no list knows (network.wg0.privatekey) and the
# hub-owrt preshared key in the peer's description: both must be redacted by their shape.
ansible -i "$inventory" tunnelfix_openwrt -m tunnelfix.fleet.openwrt_facts > "$log_dir/openwrt-facts.log"
grep -q "hub psk <redacted>" "$log_dir/openwrt-facts.log" \
  || { echo "FAIL: owrt's peer description with the planted preshared key is not in the facts, redacted"; exit 1; }
mapfile -t logs < <(find "$log_dir" -type f)
python3 tests/e2e/check_no_secrets.py lab/state/wg "${logs[@]}" reports/*

echo "== verify re-runs the rules: a pinned route planted after the fix keeps owrt's finding, and verify fails owrt naming it"
ansible -i "$inventory" owrt -m ansible.builtin.raw \
  -a "ip route replace $endpoint/32 via 100.64.20.1 dev wwan0 proto static" > /dev/null
# Short measurements and a floor the 5G uplink meets: only the re-run rule may fail owrt.
# The sweep too (short): without it the hub's download finding could not be re-checked, and verify fails it.
if ansible-playbook -i "$inventory" playbooks/verify.yml -e tunnel_sweep_duration_s=3 -e tunnel_measure_idle_s=5 \
    -e tunnel_measure_iperf3_duration_s=3 -e tunnel_measure_iperf3_omit_s=1 -e tunnel_measure_min_bits_per_second=1000 \
    > "$log_dir/verify-planted.log"; then
  echo "FAIL: verify passed with a pinned endpoint route on owrt"; exit 1
fi
ansible -i "$inventory" owrt -m ansible.builtin.raw -a "ip route del $endpoint/32 dev wwan0" > /dev/null
grep -qE "owrt: still found after the fix.*: endpoint_route_pinned" "$log_dir/verify-planted.log" \
  || { echo "FAIL: verify did not name owrt's endpoint_route_pinned"; tail -n 40 "$log_dir/verify-planted.log"; exit 1; }
python3 - reports/outcomes.json <<'PY'
import json, sys
outcomes = {(o["host"], o["id"]): o["outcome"] for o in json.load(open(sys.argv[1]))}
print("outcomes with the planted route:", outcomes)
sys.exit(0 if outcomes.get(("owrt", "endpoint_route_pinned")) == "still_present"
         and outcomes.get(("peer", "nat_peer_without_keepalive")) == "fixed" else "FAIL: outcomes")
PY
grep -E '^(owrt|peer|hub) +: ok=' "$log_dir/verify-planted.log"
if grep -E '^(peer|hub) +: ok=' "$log_dir/verify-planted.log" | grep -vq 'failed=0 '; then
  echo "FAIL: verify failed a host other than owrt"; exit 1
fi
echo "PASS: verify failed owrt alone, naming endpoint_route_pinned"

echo "== no warning or deprecation line in any run above ($(ansible --version | sed -n 1p))"
if grep -hE '\[(DEPRECATION )?WARNING\]' "$log_dir"/*.log "$log_dir/stderr.txt"; then
  echo "FAIL: the runs above printed the warning lines above"; exit 1
fi
echo "PASS: no warning line"
