#!/usr/bin/env bash
# The demo's path for the router on another OpenWrt release profile (docs/openwrt-fidelity.md): the lab
# planted afresh with owrt on RELEASE's image, then diagnose -> remediate -> verify for owrt alone, and
# what the router is left with read live, not from its config:
#   - diagnose finds banIP's ICMP limit eating mwan3's checks, the pinned endpoint route and the bridge offloads;
#   - after remediate, banIP's live ICMP flood rule(s) carry 250/s (the rule text and counter of that
#     release), uci says 250, banIP's blocklist sets stayed loaded (replace_rule), the endpoint leaves the 5G uplink;
#   - verify re-runs the rules and every finding ends `fixed`; a second remediate changes nothing.
# Usage: tests/release/run.sh RELEASE   (23.05, 24.10 or 25.12; root; about 5 minutes)
# It leaves the lab up on RELEASE's profile; make lab-fresh plants the default one again.
set -euo pipefail
cd "$(dirname "$0")/../.."
release=${1:?usage: tests/release/run.sh RELEASE}
# shellcheck source=lab/images/openwrt-release.sh
. lab/images/openwrt-release.sh
# RELEASE's image: the configured image's name with RELEASE as its tag (asked while the configured release
# is still in force, so make's TUNNELFIX_OPENWRT_IMAGE of the default profile is not taken for it)
TUNNELFIX_OPENWRT_IMAGE=$(openwrt_image_for "$release")
export TUNNELFIX_OPENWRT_RELEASE=$release TUNNELFIX_OPENWRT_IMAGE
openwrt_release_check "the release (tests/release/run.sh RELEASE)"
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg" CONTAINERS_CONF="$PWD/lab/containers.conf"
inventory=lab/state/inventory.yml
log_dir=.cache/release-$release
rm -rf "$log_dir"
mkdir -p "$log_dir"
fail() { echo "FAIL ($release): $*"; exit 1; }
# The router's live state, read in its container (not through the product).
owrt() { podman exec tf-owrt sh -c "$1"; }

echo "== OpenWrt $release: the lab planted afresh, owrt on $TUNNELFIX_OPENWRT_IMAGE"
lab/images/build-openwrt.sh --release "$release"
lab/down.sh
lab/up.sh
# shellcheck disable=SC2016  # expanded in the router's shell
owrt '. /etc/openwrt_release; echo "$DISTRIB_RELEASE"' | grep -q "^$release\." || fail "owrt does not say OpenWrt $release"

# Short measurements: the findings need a passive window of banIP and mwan3, a flow and an idle ping; no sweep.
short=(-e tunnelfix_sweep=false -e tunnel_measure_idle_s=12 -e tunnel_measure_iperf3_duration_s=5
       -e tunnel_measure_iperf3_omit_s=1 -e tunnel_measure_min_bits_per_second=1000)
echo "== diagnose (owrt)"
ansible-playbook -i "$inventory" playbooks/diagnose.yml --limit owrt:localhost "${short[@]}" > "$log_dir/diagnose.log" \
  || { tail -40 "$log_dir/diagnose.log"; fail "diagnose"; }
python3 - reports/findings.json <<'PY' || fail "diagnose's findings"
import json, sys
found = sorted(f["id"] for f in json.load(open(sys.argv[1]))["findings"] if f["host"] == "owrt")
print("owrt's findings:", found)
want = ["banip_icmp_limit_drops_health_checks", "bridge_offload_small_mtu_tunnel", "endpoint_route_pinned"]
sys.exit(0 if found == want else "want %s" % want)
PY
before=$(owrt 'nft -t list chain inet banIP pre-routing')
echo "$before" | grep -E 'limit rate over [0-9]+/second' > "$log_dir/rule-before.txt" || fail "no ICMP flood rule before the fix"
sets_before=$(owrt 'nft -t list sets table inet banIP' | grep -c '^[[:space:]]*set ' || true)

echo "== remediate, then a second remediate"
ansible-playbook -i "$inventory" playbooks/remediate.yml --limit owrt:localhost > "$log_dir/remediate.log" \
  || { tail -40 "$log_dir/remediate.log"; fail "remediate"; }
ansible-playbook -i "$inventory" playbooks/remediate.yml --limit owrt:localhost > "$log_dir/remediate-again.log" \
  || { tail -40 "$log_dir/remediate-again.log"; fail "the second remediate"; }
grep -E '^owrt +: ok=.* changed=0 ' "$log_dir/remediate-again.log" || fail "the second remediate changed something"

echo "== the live state"
after=$(owrt 'nft -t list chain inet banIP pre-routing')
rules=$(echo "$after" | grep -cE 'limit rate over [0-9]+/second' || true)
[[ "$rules" -eq "$(wc -l < "$log_dir/rule-before.txt")" ]] || fail "banIP's flood rules: $rules after, before: $(cat "$log_dir/rule-before.txt")"
if echo "$after" | grep -E 'limit rate over [0-9]+/second' | grep -vq 'limit rate over 250/second'; then
  fail "a live flood rule is not at 250/s: $after"
fi
echo "live: $(echo "$after" | grep -E 'limit rate over' | sed 's/^[[:space:]]*//')"
[[ "$(owrt 'uci -q get banip.global.ban_icmplimit')" == 250 ]] || fail "uci does not say 250"
sets_after=$(owrt 'nft -t list sets table inet banIP' | grep -c '^[[:space:]]*set ' || true)
[[ "$sets_after" -eq "$sets_before" && "$sets_after" -gt 0 ]] || fail "banIP's sets: $sets_before before, $sets_after after"
dev=$(owrt 'ip route get 198.51.100.1' | sed -n 's/.* dev \([^ ]*\) .*/\1/p' | head -n 1)
[[ "$dev" == eth1 ]] || fail "the endpoint route uses '$dev', not the fibre uplink eth1"

echo "== verify (owrt)"
ansible-playbook -i "$inventory" playbooks/verify.yml --limit owrt:localhost "${short[@]}" > "$log_dir/verify.log" \
  || { tail -40 "$log_dir/verify.log"; fail "verify"; }
python3 - reports/outcomes.json <<'PY' || fail "verify's outcomes"
import json, sys
outcomes = sorted((o["id"], o["outcome"]) for o in json.load(open(sys.argv[1])) if o["host"] == "owrt")
print("owrt's outcomes:", outcomes)
sys.exit(0 if len(outcomes) == 3 and all(o == "fixed" for _id, o in outcomes) else "a finding is not fixed")
PY
echo "PASS: OpenWrt $release"
