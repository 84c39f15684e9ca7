#!/usr/bin/env bash
# The tunnel graph on the running lab (issue 32; docs/tunnel-graph.md): faults between two hosts planted with real
# wireguard-go on both ends, found by diagnose from both ends' facts, and the one with a safe local fix fixed by
# remediate:
#   1. preflight: the lab as usual (its own faults fixed: by e2e before it, or remediate.yml with every role here),
#      both tunnels up; diagnose (no measurement) finds no graph fault on the lab as it is;
#   2. planted: the owrt <-> hub tunnel with the keepalive on the wrong side (owrt keeps the endpoint and sends none;
#      the hub's [Peer] for owrt sends one: uci and live on owrt, wg0.conf and live on the hub), and the peer <-> hub
#      tunnel with a preshared key on the hub's side only (the peer's wg0.conf without its PresharedKey line, both
#      entries set anew so neither has a handshake);
#   3. diagnose: keepalive_on_wrong_side on owrt (naming wireguard_keepalive), handshake_never_completes on peer and
#      hub classified as a preshared key on one end only (certain), and no other graph finding;
#   4. remediate: wireguard_keepalive on owrt puts the keepalive back (uci and live `wg show`), nothing on peer or hub
#      for the report-only finding; the preshared key put back by hand, as the finding says;
#   5. verify: every finding of step 3 `fixed`;
#   6. two different preshared keys (the peer's replaced by a new one from its own wg genpsk): handshake_never_completes
#      on both ends, certain, the keys compared by their salted fingerprints (made on each host; the key in no report);
#   7. a path problem: the nat drops the peer's packets to the hub's port, both entries set anew: diagnose takes the
#      second sample of both ends' counters (diagnose.yml's second_sample play) and classifies a path problem (high),
#      and endpoint_address_mismatch (medium) names the peer's endpoint, the WAN relay, which is no address of the hub;
#   8. restore (trap): the nat's drop removed, the hub's and peer's wg0.conf as they were, owrt's keepalive 25.
# Usage: tests/graph/run.sh   (root; the lab up: make graph-e2e; about 90 s; logs and reports in .cache/graph/)
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $# -eq 0 ]] || { sed -n '2,21p' "$0"; exit 2; }
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg" CONTAINERS_CONF="$PWD/lab/containers.conf"
inventory=lab/state/inventory.yml
log_dir=.cache/graph
rm -rf "$log_dir"
mkdir -p "$log_dir"
hub_ip=10.44.0.1
owrt_tunnel_ip=10.44.0.3
lab_keepalive_s=25      # owrt's uci persistent_keepalive on the usual lab
drop_table=tunnelfix_graph_e2e
# facts and rules only: the graph needs no measurement
quick=(-e tunnelfix_measure=false -e tunnelfix_sweep=false)
limit=peer:owrt:hub:localhost
fail() { echo "FAIL (graph): $*"; exit 1; }
cx() { podman exec "tf-$1" sh -c "$2"; }
timings=()
step_name="" step_start=0
step() {
  [[ -z "$step_name" ]] || timings+=("$(printf '%4ss  %s' $((SECONDS - step_start)) "$step_name")")
  step_name="$1" step_start=$SECONDS
  [[ -z "$step_name" ]] || echo "== [${SECONDS}s] $step_name"
}
# HOST's public key (the running wg0's), from its own wg
public_key() { cx "$1" 'wg show wg0 public-key'; }
# ping HOST -> the hub's tunnel address until it answers (at most TRIES s): a new handshake
tunnel_up() {
  local host="$1" tries="${2:-30}" i
  for ((i = 0; i < tries; i++)); do
    cx "$host" "ping -c 1 -W 1 $hub_ip" > /dev/null 2>&1 && return 0
  done
  return 1
}
# the hub's entry for KEY taken out and set again from its wg0.conf: no handshake, counters at 0 (the others kept)
reset_hub_entry() {
  cx hub "wg set wg0 peer $1 remove && wg-quick strip wg0 > /tmp/tunnelfix-graph-e2e.conf && wg syncconf wg0 /tmp/tunnelfix-graph-e2e.conf; rm -f /tmp/tunnelfix-graph-e2e.conf"
}
restart_peer() { cx peer 'systemctl restart wg-quick@wg0'; }
# both entries of peer <-> hub set anew (no handshake, counters at 0), then 12 s for a few of the peer's 5 s handshake
# retries (its keepalive starts them) to be counted
fresh_peer_entries() {
  restart_peer
  reset_hub_entry "$peer_key"
  sleep 12
}
run_playbook() {
  local name="$1"; shift
  ansible-playbook -i "$inventory" "playbooks/$name.yml" --limit "$limit" "$@" > "$log_dir/$name-$SECONDS.log" 2>&1
}
# the graph findings of reports/findings.json as "host id classification confidence" lines, sorted
graph_findings() {
  python3 - reports/findings.json <<'PY'
import json, sys
GRAPH = {"one_sided_peer", "duplicate_public_key", "public_key_mismatch", "no_endpoint_either_side", "endpoint_port_mismatch",
         "endpoint_address_mismatch", "return_path_not_allowed", "keepalive_on_wrong_side", "handshake_never_completes",
         "allowed_ips_overlap", "allowed_ips_shadow_lan"}
for finding in sorted(json.load(open(sys.argv[1]))["findings"], key=lambda f: (f["host"], f["id"])):
    if finding["id"] in GRAPH:
        ev = finding["evidence"]
        print(finding["host"], finding["id"], (ev.get("classification") or "-").replace(" ", "_"), ev.get("confidence") or "-",
              ev.get("samples") or "-")
PY
}
# diagnose (facts and rules; ARGS...: more ansible-playbook options) of case NAME: its findings kept in
# $log_dir/findings-NAME.json, its graph findings (graph_findings' lines) printed and required to be exactly WANT
diagnose_expecting() {
  local name="$1" want="$2" found
  shift 2
  run_playbook diagnose "${quick[@]}" "$@" || fail "diagnose ($name)"
  cp reports/findings.json "$log_dir/findings-$name.json"
  found=$(graph_findings)
  printf '%s\n' "$found"
  [[ "$found" == "$want" ]] || fail "graph findings ($name) differ from:"$'\n'"$want"
}

restore() {
  local rc=$? h
  set +e
  step "restore: the nat's drop off, wg0.conf of hub and peer as they were, owrt's keepalive $lab_keepalive_s"
  cx nat "nft delete table inet $drop_table" 2> /dev/null
  for h in hub peer; do
    if cx "$h" 'test -s /root/tunnelfix-graph-e2e-wg0.conf'; then
      cx "$h" 'cp /root/tunnelfix-graph-e2e-wg0.conf /etc/wireguard/wg0.conf && rm -f /root/tunnelfix-graph-e2e-wg0.conf'
    fi
  done
  cx hub 'systemctl restart wg-quick@wg0'
  restart_peer
  cx owrt "uci set network.hub.persistent_keepalive=$lab_keepalive_s && uci commit network && wg set wg0 peer $(public_key hub) persistent-keepalive $lab_keepalive_s"
  tunnel_up owrt || { echo "FAIL (graph): owrt -> hub is not up after the restore"; rc=1; }
  tunnel_up peer || { echo "FAIL (graph): peer -> hub is not up after the restore"; rc=1; }
  step ""
  echo "== time per step"
  printf '%s\n' "${timings[@]}"
  echo "total ${SECONDS}s"
  exit "$rc"
}

step "preflight: the lab as usual, both tunnels up"
[[ -s "$inventory" ]] || fail "no lab inventory ($inventory): make lab-up"
planted=()
cx owrt 'ip route get 198.51.100.1' | grep -q 'dev eth1' || planted+=("owrt's endpoint route is not on the fibre")
[[ "$(cx owrt 'uci -q get banip.global.ban_icmplimit' || true)" == 250 ]] || planted+=("banIP's ICMP limit is not 250/s")
cx peer 'cat /etc/wireguard/wg0.conf' | grep -q '^PersistentKeepalive' || planted+=("the peer has no PersistentKeepalive")
if [[ ${#planted[@]} -gt 0 ]]; then
  echo "the lab's faults are planted ($(IFS=';'; echo "${planted[*]}")): remediate.yml with every role first"
  ansible-playbook -i "$inventory" playbooks/remediate.yml -e tunnelfix_remediate_all_roles=true > "$log_dir/remediate-lab.log" 2>&1 \
    || { tail -40 "$log_dir/remediate-lab.log"; fail "remediate.yml with every role (the lab's own faults)"; }
fi
tunnel_up peer || fail "no tunnel peer -> hub"
tunnel_up owrt || fail "no tunnel owrt -> hub"
hub_key=$(public_key hub)
peer_key=$(public_key peer)
owrt_key=$(public_key owrt)
for h in hub peer; do
  cx "$h" 'cp /etc/wireguard/wg0.conf /root/tunnelfix-graph-e2e-wg0.conf'
done
trap restore EXIT

step "diagnose the lab as it is: no graph finding"
run_playbook diagnose "${quick[@]}" || fail "diagnose (the lab as usual)"
found=$(graph_findings)
[[ -z "$found" ]] || fail "graph findings on the usual lab: $found"
echo "no graph finding"

step "plant: the keepalive on the wrong side of owrt <-> hub; a preshared key on the hub's side only of peer <-> hub"
cx owrt "uci -q delete network.hub.persistent_keepalive; uci commit network && wg set wg0 peer $hub_key persistent-keepalive 0"
cx hub "sed -i '/^AllowedIPs = ${owrt_tunnel_ip//./\\.}\\/32\$/a PersistentKeepalive = 25' /etc/wireguard/wg0.conf"
cx hub "grep -c '^PersistentKeepalive = 25' /etc/wireguard/wg0.conf" | grep -qx 1 || fail "the hub's [Peer] for owrt has no PersistentKeepalive"
cx hub "wg set wg0 peer $owrt_key persistent-keepalive 25"
cx peer "sed -i '/^PresharedKey/d' /etc/wireguard/wg0.conf"
fresh_peer_entries
cx hub 'wg show wg0 dump' | awk -v k="$peer_key" '$1 == k { print "hub entry for peer: handshake", $5, "rx", $6, "tx", $7 }'
cx peer 'wg show wg0 dump' | awk -v k="$hub_key" '$1 == k { print "peer entry for hub: handshake", $5, "rx", $6, "tx", $7 }'
if tunnel_up peer 3; then fail "the peer reaches the hub with a preshared key on one end"; fi

step "diagnose: both planted faults from both ends"
diagnose_expecting planted $'hub handshake_never_completes looks_like_a_key_or_PSK_mismatch certain 1\nowrt keepalive_on_wrong_side - - -\npeer handshake_never_completes looks_like_a_key_or_PSK_mismatch certain 1'
python3 - reports/findings.json <<'PY' || fail "owrt's finding does not name wireguard_keepalive with its entry"
import json, sys
(finding,) = [f for f in json.load(open(sys.argv[1]))["findings"] if f["id"] == "keepalive_on_wrong_side"]
print("owrt's fix:", finding.get("fix_role"), finding.get("fix_vars"))
assert finding.get("fix_role") == "tunnelfix.fleet.wireguard_keepalive", finding.get("fix_role")
assert finding.get("fix_vars", {}).get("wireguard_keepalive_interfaces") == ["wg0"], finding.get("fix_vars")
PY

step "remediate: wireguard_keepalive on owrt; the preshared key back by hand on the peer"
run_playbook remediate || fail "remediate"
[[ "$(cx owrt 'uci -q get network.hub.persistent_keepalive')" == 25 ]] || fail "owrt's uci has no persistent_keepalive 25"
live=$(cx owrt 'wg show wg0 persistent-keepalive' | awk -v k="$hub_key" '$1 == k { print $2 }')
echo "owrt: uci persistent_keepalive $(cx owrt 'uci -q get network.hub.persistent_keepalive'), live $live"
[[ "$live" == 25 ]] || fail "owrt's live keepalive for the hub is '$live'"
cx peer 'cp /root/tunnelfix-graph-e2e-wg0.conf /etc/wireguard/wg0.conf'
restart_peer
tunnel_up peer || fail "peer -> hub is not up with the preshared key back"

step "verify: every planted finding fixed (and every other finding of that diagnose)"
run_playbook verify "${quick[@]}" || fail "verify"
python3 - reports/outcomes.json <<'PY' || fail "verify's outcomes"
import json, sys
outcomes = sorted((o["host"], o["id"], o["outcome"]) for o in json.load(open(sys.argv[1])))
print("outcomes:", outcomes)
want = [("hub", "handshake_never_completes", "fixed"), ("owrt", "keepalive_on_wrong_side", "fixed"),
        ("peer", "handshake_never_completes", "fixed")]
# the planted ones fixed, and whatever else diagnose found with them (a dead tunnel's stale_despite_keepalive) too
sys.exit(0 if set(want) <= set(outcomes) and all(o[2] == "fixed" for o in outcomes) else "want %s fixed" % want)
PY

step "two different preshared keys: the peer's replaced by a new one; compared by their salted fingerprints"
# wg genpsk's key goes from the peer's own wg straight into its file: it is printed nowhere
cx peer "psk=\$(wg genpsk) && sed -i \"s#^PresharedKey = .*#PresharedKey = \$psk#\" /etc/wireguard/wg0.conf"
cx peer "grep -c '^PresharedKey = ' /etc/wireguard/wg0.conf" | grep -qx 1 || fail "the peer's wg0.conf has no PresharedKey line"
fresh_peer_entries
diagnose_expecting two-psks $'hub handshake_never_completes looks_like_a_key_or_PSK_mismatch certain 1\npeer handshake_never_completes looks_like_a_key_or_PSK_mismatch certain 1'
python3 - reports/findings.json <<'PY' || fail "the findings do not say the preshared keys differ"
import json, sys
said = sorted((f["host"], f["evidence"].get("preshared_keys")) for f in json.load(open(sys.argv[1]))["findings"]
              if f["id"] == "handshake_never_completes")
print("preshared_keys:", said)
sys.exit(0 if said == [("hub", "differ"), ("peer", "differ")] else "want differ on hub and peer")
PY
if grep -rq "$(cx peer "sed -n 's/^PresharedKey = //p' /etc/wireguard/wg0.conf")" reports/ "$log_dir"; then
  fail "the peer's preshared key is in reports/ or $log_dir"
fi
cx peer 'cp /root/tunnelfix-graph-e2e-wg0.conf /etc/wireguard/wg0.conf'

step "a path problem: the nat drops the peer's packets to the hub's port; diagnose with the second sample"
cx nat "nft add table inet $drop_table && nft add chain inet $drop_table forward '{ type filter hook forward priority -10; }' && nft add rule inet $drop_table forward udp dport 51820 drop"
fresh_peer_entries
# and endpoint_address_mismatch on the peer, medium: it knocks at the WAN relay (203.0.113.1), an address on none of
# the hub's devices, while owrt reaches the hub at 198.51.100.1 and the hub hears nothing from the peer; its text says
# "unless it is the hub's too" (here it is: the relay forwards to the hub). With the preshared key above the hub heard
# the peer, and the rule stayed silent.
diagnose_expecting path $'hub handshake_never_completes looks_like_a_path_problem high 2\npeer endpoint_address_mismatch - medium -\npeer handshake_never_completes looks_like_a_path_problem high 2' \
  -e tunnelfix_second_sample_wait_s=8
step ""
