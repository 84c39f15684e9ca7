#!/usr/bin/env bash
# The PMTU black hole on the running lab (issue 31; lab/README.md, "The PMTU black hole"), for the Linux peer
# (peer, through nat's forward path) and the OpenWrt router (owrt, through the hub's ingress):
#   1. preflight: the hole off, wg0 at 1420 on peer, owrt and hub, the lab's other faults fixed (by e2e before it in
#      make test; on a freshly planted lab by remediate.yml with every role), owrt's tunnel on its fibre uplink;
#   2. the baseline: one bulk TCP flow through the tunnel, peer -> hub and owrt -> hub, without the hole;
#   3. the hole on (lab/black_hole.sh, path MTU 1400): don't-fragment pings of 1400 bytes pass and of 1401 are
#      lost, outside the tunnel (to the endpoints) and inside it; the bulk flows move almost nothing (< 10 %);
#   4. the fix, by the product (default; NEEDS the roles path_mtu_measure and wireguard_mtu):
#      diagnose reports path_mtu_black_hole on peer, owrt and hub with the measured path MTU 1400 and the MTU it
#      will set; remediate; the hole still in place; the live MTU (`ip link`) is the one the finding named;
#      verify reports the finding `fixed`;
#      or, with --manual, the physics without the product: wg0's MTU set to 1340 by hand on the three hosts;
#   5. the bulk flows again: each at least 90 % of its baseline;
#   6. restore: the hole off and wg0 at 1420 again (with the roles: wireguard_mtu applied with 1420, so the
#      configuration files say 1420 too), whatever happened before (trap), so the later lab tests see the usual lab.
# Usage: tests/pmtu/run.sh [--manual]   (root; the lab up: make pmtu-e2e; about 4 minutes, --manual 1; each step's
# time is printed at the end; logs and findings in .cache/pmtu/)
# The peer's flows use BBR (-C bbr): through the lab's 1 % loss CUBIC moves 2-3 Mbit/s and its ratio is noise.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=product
case "${1:-}" in
  "") ;;
  --manual) mode=manual ;;
  *) sed -n '2,19p' "$0"; exit 2 ;;
esac
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg" CONTAINERS_CONF="$PWD/lab/containers.conf"
inventory=lab/state/inventory.yml
log_dir=.cache/pmtu
rm -rf "$log_dir"
mkdir -p "$log_dir"
path_mtu=1400          # the hole: the largest IP packet that passes
lab_mtu=1420           # wg0's MTU on the usual lab
manual_mtu=1340        # the path MTU minus WireGuard's 60 bytes over IPv4
flow_s=5               # each bulk flow: 5 s measured after 1 s of slow start left out (lab/README.md: BBR's
omit_s=1               # 5 s flows of the peer spread 36.1-37.7 Mbit/s, owrt's 36.6 every time)
ratio_min=0.90         # after the fix, of the baseline
ratio_max_hole=0.10    # with the hole, of the baseline
iperf3_port=5290       # not tunnel_measure's (5201 + n)
hosts=(peer owrt hub)
declare -A FLOW_ARGS=([peer]="-C bbr" [owrt]="")
declare -A BASELINE=()
fail() { echo "FAIL (pmtu): $*"; exit 1; }
cx() { podman exec "tf-$1" sh -c "$2"; }
timings=()
step_name="" step_start=0
step() {
  [[ -z "$step_name" ]] || timings+=("$(printf '%4ss  %s' $((SECONDS - step_start)) "$step_name")")
  step_name="$1" step_start=$SECONDS
  [[ -z "$step_name" ]] || echo "== [${SECONDS}s] $step_name"
}

# wg0's live MTU on a host, from `ip link` in its container.
live_mtu() { cx "$1" 'ip -o link show dev wg0' | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'; }
set_live_mtu() { local h; for h in "${hosts[@]}"; do cx "$h" "ip link set dev wg0 mtu $1"; done; }

# One bulk TCP flow HOST -> hub's tunnel address (a one-test iperf3 server on the hub); prints bits/s received.
flow() {
  local host="$1" seconds="$2" omit="$3" out
  cx hub "iperf3 -s -1 -D -I /tmp/tunnelfix-pmtu-iperf3.pid -B 10.44.0.1 -p $iperf3_port"
  sleep 1
  # shellcheck disable=SC2086  # the flow's extra options are words
  out=$(timeout $((seconds + omit + 30)) podman exec "tf-$host" iperf3 -c 10.44.0.1 -p "$iperf3_port" -t "$seconds" \
    -O "$omit" --connect-timeout 3000 -J ${FLOW_ARGS[$host]} 2>&1 || true)
  # shellcheck disable=SC2016  # expanded in the hub's shell
  cx hub 'if [ -s /tmp/tunnelfix-pmtu-iperf3.pid ]; then kill "$(cat /tmp/tunnelfix-pmtu-iperf3.pid)" 2>/dev/null; fi; rm -f /tmp/tunnelfix-pmtu-iperf3.pid' || true
  printf '%s\n' "$out" > "$log_dir/flow-$host-$SECONDS.json"
  python3 -c '
import json, sys
try:
    end = json.loads(sys.stdin.read())["end"]
    print(int(end["sum_received"]["bits_per_second"]))
except (ValueError, KeyError, TypeError):
    print(0)' <<<"$out"
}
mbit() { python3 -c "import sys; print('%.2f' % (int(sys.argv[1]) / 1e6))" "$1"; }
ratio() { python3 -c "import sys; print('%.3f' % (int(sys.argv[1]) / int(sys.argv[2])))" "$1" "$2"; }
at_least() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$1" "$2"; }

# Don't-fragment ping of PAYLOAD bytes from HOST to TARGET: 0 answered, 1 lost. BusyBox's ping (owrt) has no DF
# option; Linux sets DF on it up to the egress MTU (faults/path_mtu/ladder.py), which is all these sizes.
# COUNT pings (default 2, 0.2 s apart: one may be lost to the relay's 1 % loss of the peer's large datagrams).
df_ping() {
  local host="$1" target="$2" payload="$3" count="${4:-2}" df="-M do"
  [[ "$host" == owrt ]] && df=""
  cx "$host" "ping $df -c $count -i 0.2 -W 1 -s $payload $target" > /dev/null 2>&1
}
# The hole's edge toward TARGET: PASS_PAYLOAD answered, PASS_PAYLOAD + 1 lost.
edge() {
  local host="$1" target="$2" pass="$3"
  df_ping "$host" "$target" "$pass" || fail "$host -> $target: a $((pass + 28))-byte DF ping was lost"
  if df_ping "$host" "$target" $((pass + 1)) 1; then fail "$host -> $target: a $((pass + 29))-byte DF ping passed the hole"; fi
  echo "$host -> $target: $((pass + 28)) bytes answered, $((pass + 29)) lost"
}

restore() {
  local rc=$? h
  set +e
  step "restore: the hole off, wg0 at $lab_mtu"
  lab/black_hole.sh off
  if [[ "$mode" == product ]]; then
    # --- NEEDS the role wireguard_mtu: the configuration files back at the lab's MTU ---
    ansible-playbook -i "$inventory" tests/pmtu/restore_mtu.yml > "$log_dir/restore.log" 2>&1 \
      || { tail -20 "$log_dir/restore.log"; echo "FAIL (pmtu): wireguard_mtu could not set $lab_mtu back"; rc=1; }
  fi
  set_live_mtu "$lab_mtu"
  for h in "${hosts[@]}"; do
    [[ "$(live_mtu "$h")" == "$lab_mtu" ]] || { echo "FAIL (pmtu): $h's wg0 is not back at $lab_mtu"; rc=1; }
  done
  step ""
  echo "== time per step"
  printf '%s\n' "${timings[@]}"
  echo "total ${SECONDS}s"
  exit "$rc"
}

step "preflight: the lab as usual"
[[ -s "$inventory" ]] || fail "no lab inventory ($inventory): make lab-up"
hole=$(lab/black_hole.sh status)
[[ "$hole" == $'nat off\nhub off' ]] || lab/black_hole.sh off
trap restore EXIT
for h in "${hosts[@]}"; do
  [[ "$(live_mtu "$h")" == "$lab_mtu" ]] || { echo "$h: wg0 at $(live_mtu "$h"), setting $lab_mtu"; cx "$h" "ip link set dev wg0 mtu $lab_mtu"; }
done
# The lab's other faults fixed: make test runs this right after e2e, which fixed them. On a freshly planted lab
# (make pmtu-e2e alone) they would take part: owrt's endpoint pinned to the 2 Mbit/s 5G uplink, banIP's limit
# failing verify's health checks, the peer's NAT mapping expiring under the hub's ladder. Then remediate every
# role first, without the hole (about a minute).
planted=()
cx owrt 'ip route get 198.51.100.1' | grep -q 'dev eth1' || planted+=("owrt's endpoint route is not on the fibre")
[[ "$(cx owrt 'uci -q get banip.global.ban_icmplimit' || true)" == 250 ]] || planted+=("banIP's ICMP limit is not 250/s")
cx peer 'cat /etc/wireguard/wg0.conf' | grep -q '^PersistentKeepalive' || planted+=("the peer has no PersistentKeepalive")
if [[ ${#planted[@]} -gt 0 ]]; then
  echo "the lab's faults are planted ($(IFS=';'; echo "${planted[*]}")): remediate.yml with every role first"
  ansible-playbook -i "$inventory" playbooks/remediate.yml -e tunnelfix_remediate_all_roles=true > "$log_dir/remediate-lab.log" \
    || { tail -40 "$log_dir/remediate-lab.log"; fail "remediate.yml with every role (the lab's other faults)"; }
fi
cx owrt 'ip route get 198.51.100.1' | grep -q 'dev eth1' || fail "owrt's endpoint route does not use the fibre uplink eth1"
cx peer 'ping -c 2 -W 2 10.44.0.1' > /dev/null || fail "no tunnel peer -> hub"
cx owrt 'ping -c 2 -W 2 10.44.0.1' > /dev/null || fail "no tunnel owrt -> hub"

step "baseline: one bulk TCP flow per tunnel, no hole (${flow_s} s + ${omit_s} s omitted)"
for h in peer owrt; do
  BASELINE[$h]=$(flow "$h" "$flow_s" "$omit_s")
  echo "$h -> hub: $(mbit "${BASELINE[$h]}") Mbit/s"
  at_least "${BASELINE[$h]}" 20000000 || fail "$h's baseline is below 20 Mbit/s: the lab is not as usual"
done

step "the hole on (path MTU $path_mtu), checked with don't-fragment pings"
lab/black_hole.sh on --path-mtu "$path_mtu"
edge peer 203.0.113.1 $((path_mtu - 28))
edge owrt 198.51.100.1 $((path_mtu - 28))
# Inside the tunnel the edge is lower: WireGuard pads each packet to a multiple of 16 bytes (at most to the MTU),
# so at MTU 1420 the largest inner packet whose outer packet fits 1400 is 1328 (1340 padded to 1344 does not).
edge peer 10.44.0.1 $(( (path_mtu - 60) / 16 * 16 - 28 ))
edge owrt 10.44.0.1 $(( (path_mtu - 60) / 16 * 16 - 28 ))

step "with the hole: the bulk flows move almost nothing (3 s each)"
for h in peer owrt; do
  bps=$(flow "$h" 3 0)
  echo "$h -> hub with the hole: $(mbit "$bps") Mbit/s ($(ratio "$bps" "${BASELINE[$h]}") of the baseline)"
  at_least "$ratio_max_hole" "$(ratio "$bps" "${BASELINE[$h]}")" || fail "$h's flow through the hole is not below 10 % of its baseline"
done

if [[ "$mode" == manual ]]; then
  step "manual fix: wg0 at $manual_mtu on peer, owrt and hub (ip link)"
  set_live_mtu "$manual_mtu"
  declare -A SET_MTU=([peer]=$manual_mtu [owrt]=$manual_mtu [hub]=$manual_mtu)
else
  # ---------------- NEEDS the roles path_mtu_measure (diagnose, verify) and wireguard_mtu (remediate) ----------------
  # Short measurements: the ladders are what counts; no sweep, short flows (tunnel_measure's own is no proof here:
  # the flows of this script are), no banIP window.
  # The keepalive is e2e's (fixed before this runs): no idle window either.
  short=(-e tunnelfix_sweep=false -e tunnel_measure_idle_s=0 -e tunnel_measure_ping_count=2
         -e tunnel_measure_iperf3_duration_s=3 -e tunnel_measure_iperf3_omit_s=0 -e tunnel_measure_start_jitter_max_s=0
         -e tunnel_measure_min_bits_per_second=1000 -e health_check_measure_window_s=0 -e health_check_measure_count=2)
  limit=peer:owrt:hub:localhost
  step "diagnose ($limit)"
  ansible-playbook -i "$inventory" playbooks/diagnose.yml --limit "$limit" "${short[@]}" > "$log_dir/diagnose.log" \
    || { tail -40 "$log_dir/diagnose.log"; fail "diagnose"; }
  cp reports/findings.json "$log_dir/findings.json"
  # Each host's finding: the measured path MTU 1400 outside the tunnel where the endpoint's path crosses the hole
  # (peer: nat; owrt: the hub's ingress; the hub toward owrt, whose echo replies cross it; not the hub toward the
  # relay 198.51.100.254, which is before nat), the inner path under it, and the MTU to set: the outer path minus
  # 60 (1340) or the inner path where smaller (WireGuard's padding: 1328 at MTU 1420; rule.py takes the smaller).
  python3 - reports/findings.json "$path_mtu" "$lab_mtu" > "$log_dir/set-mtu.txt" <<'PY' || fail "diagnose's PMTU findings"
import json, sys
findings, path_mtu, lab_mtu = json.load(open(sys.argv[1]))["findings"], int(sys.argv[2]), int(sys.argv[3])
errors = []
for host in ("peer", "owrt", "hub"):
    mine = [f for f in findings if f["host"] == host and f["id"] == "path_mtu_black_hole"]
    others = sorted(f["id"] for f in findings if f["host"] == host and f["id"] != "path_mtu_black_hole")
    if len(mine) != 1:
        errors.append("%s: %d path_mtu_black_hole findings (other findings: %s)" % (host, len(mine), others))
        continue
    ev = mine[0]["evidence"]
    print("%s %s" % (host, ev.get("set_mtu_bytes")))
    sys.stderr.write("%s: %s, tunnel %s, outer path %s, inner path %s, set %s (other findings: %s)\n" % (
        host, ev.get("interface"), ev.get("tunnel_mtu_bytes"), ev.get("outer_path_mtu_bytes"),
        ev.get("inner_path_mtu_bytes"), ev.get("set_mtu_bytes"), others))
    if ev.get("interface") != "wg0" or ev.get("tunnel_mtu_bytes") != lab_mtu:
        errors.append("%s: interface %r at %r, want wg0 at %d" % (host, ev.get("interface"), ev.get("tunnel_mtu_bytes"), lab_mtu))
    # the hub's finding is its tightest peer's: toward owrt 1400, toward the relay 1500 (not across the hole)
    if ev.get("outer_path_mtu_bytes") not in ((path_mtu, 1500, None) if host == "hub" else (path_mtu,)):
        errors.append("%s: outer path MTU %r, want %d" % (host, ev.get("outer_path_mtu_bytes"), path_mtu))
    inner = ev.get("inner_path_mtu_bytes")
    if inner is not None and not path_mtu - 60 - 15 <= inner <= path_mtu - 60:
        errors.append("%s: inner path MTU %r, want %d-%d" % (host, inner, path_mtu - 75, path_mtu - 60))
    if not isinstance(ev.get("set_mtu_bytes"), int) or not path_mtu - 60 - 15 <= ev["set_mtu_bytes"] <= path_mtu - 60:
        errors.append("%s: MTU to set %r, want %d-%d" % (host, ev.get("set_mtu_bytes"), path_mtu - 75, path_mtu - 60))
sys.exit("; ".join(errors) if errors else 0)
PY
  declare -A SET_MTU=()
  while read -r h m; do SET_MTU[$h]=$m; done < "$log_dir/set-mtu.txt"

  step "remediate ($limit)"
  ansible-playbook -i "$inventory" playbooks/remediate.yml --limit "$limit" > "$log_dir/remediate.log" \
    || { tail -40 "$log_dir/remediate.log"; fail "remediate"; }
  # the fix must not have removed the hole: a tunnel that works because the hole went away proves nothing
  lab/black_hole.sh status | tee "$log_dir/hole-after-remediate.txt"
  [[ "$(grep -c " on path_mtu=$path_mtu " "$log_dir/hole-after-remediate.txt")" -eq 2 ]] || fail "the hole is gone after remediate"
  if df_ping peer 203.0.113.1 $((path_mtu - 27)) 1; then fail "after remediate a $((path_mtu + 1))-byte DF ping passes the hole"; fi
  # ---------------- end of the part that needs the roles (verify below needs path_mtu_measure too) ----------------
fi

step "the live MTU (ip link) is the one set"
for h in "${hosts[@]}"; do
  live=$(live_mtu "$h")
  echo "$h: wg0 mtu $live (set: ${SET_MTU[$h]})"
  [[ "$live" == "${SET_MTU[$h]}" ]] || fail "$h's wg0 is at $live, the fix said ${SET_MTU[$h]}"
done

if [[ "$mode" == product ]]; then
  step "verify ($limit)"
  ansible-playbook -i "$inventory" playbooks/verify.yml --limit "$limit" "${short[@]}" > "$log_dir/verify.log" \
    || { tail -40 "$log_dir/verify.log"; fail "verify"; }
  cp reports/outcomes.json "$log_dir/outcomes.json"
  python3 - reports/outcomes.json <<'PY' || fail "verify's outcomes"
import json, sys
outcomes = {o["host"]: o["outcome"] for o in json.load(open(sys.argv[1])) if o["id"] == "path_mtu_black_hole"}
print("path_mtu_black_hole after verify:", outcomes)
sys.exit(0 if outcomes == {"peer": "fixed", "owrt": "fixed", "hub": "fixed"} else "want fixed on peer, owrt and hub")
PY
fi

step "after the fix, the hole still on: the bulk flows at >= $ratio_min of the baseline"
hole=$(lab/black_hole.sh status)
[[ "$(grep -c " on path_mtu=$path_mtu " <<<"$hole")" -eq 2 ]] || fail "the hole is not on: $hole"
for h in peer owrt; do
  bps=$(flow "$h" "$flow_s" "$omit_s")
  r=$(ratio "$bps" "${BASELINE[$h]}")
  echo "$h -> hub: $(mbit "$bps") Mbit/s through the hole at MTU ${SET_MTU[$h]}, $r of the baseline $(mbit "${BASELINE[$h]}")"
  at_least "$r" "$ratio_min" || fail "$h's flow after the fix is below $ratio_min of its baseline"
done
lab/black_hole.sh status
echo "PASS: the PMTU black hole ($mode)"
