#!/usr/bin/env bash
# Lab proof of guarded_apply's automatic rollback (docs/rollback.md). Needs the running lab (make lab-up).
# For owrt (OpenWrt-like: BusyBox, no Python, no systemd) and hub (Debian, systemd), each reached
# THROUGH its WireGuard tunnel (owrt 10.44.0.3 via the hub, hub 10.44.0.1 via the peer):
#   0. (concurrent_check, first; tests/rollback/concurrent.yml, issue 30.5) on owrt two runs with the same guard:
#      A takes its snapshot and commits a change that cuts the tunnel, B's snapshot meanwhile must be refused naming
#      A, then A's guarded ifup cuts the tunnel and A's revert must leave the file byte-identical to the original;
#   1. a deliberately broken change (owrt: its only peer disabled + ifup wg0; hub: wrong ListenPort +
#      restart wg-quick@wg0) must fail the host with "change rolled back: ..." after the revert's
#      deadline; then, checked over the MANAGEMENT path: the config file's sha256 equals the one from
#      before, the host is reachable through the tunnel again, and a ping crosses the tunnel;
#   2. a harmless change (a comment line, an unused uci option) must be confirmed and kept;
# The lab is left as found: the files are put back byte for byte (and on failure, the interface
# brought up again with them). Independent of which lab faults are planted or fixed.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg" CONTAINERS_CONF="$PWD/lab/containers.conf"
# shellcheck source=lab/common.sh disable=SC1091
source lab/common.sh
[[ -f "$INVENTORY" && -f "$SSH_KEY" ]] || { echo "FAIL: no lab (run make lab-up first)"; exit 1; }

ROLLBACK_TIMEOUT_S=${TF_ROLLBACK_TIMEOUT_S:-40}
RECONNECT_TIMEOUT_S=${TF_ROLLBACK_RECONNECT_TIMEOUT_S:-25}
# the concurrent check (0.) is short: its revert is due 20 s after arming
CONC_ROLLBACK_TIMEOUT_S=20
CONC_RECONNECT_TIMEOUT_S=14
# TF_ROLLBACK_CASES: which parts run (all by default); e.g. "concurrent" for only 0.
CASES=${TF_ROLLBACK_CASES:-"owrt hub concurrent"}
SSH_OPTS=(-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR
          -o ConnectTimeout=5 -i "$SSH_KEY")
work=$(mktemp -d)
declare -A FILE=([owrt]=/etc/config/network [hub]=/etc/wireguard/wg0.conf)
declare -A MGMT=([owrt]="${MGMT_IP[owrt]}" [hub]="${MGMT_IP[hub]}" [peer]="${MGMT_IP[peer]}")
declare -A REAPPLY=([owrt]="ifup wg0" [hub]="systemctl restart wg-quick@wg0")
declare -A ORIG_SHA=()

# shellcheck disable=SC2029  # the command is meant to expand here and run there
mgmt() { local host=$1; shift; ssh "${SSH_OPTS[@]}" "root@${MGMT[$host]}" "$@"; }
sha_of() { mgmt "$1" "sha256sum < ${FILE[$1]}" | cut -c1-64; }

# Keep a copy of each file (0700 directory on the host itself) and put it back at the end.
restore_lab() {
  local rc=$? host
  for host in "${!ORIG_SHA[@]}"; do
    if [[ "$(sha_of "$host" || true)" != "${ORIG_SHA[$host]}" ]]; then
      mgmt "$host" "cp -p /tmp/tfrb-orig/file ${FILE[$host]}" || true
      # only a failed run can leave the interface running something else than the file says
      [[ $rc -eq 0 ]] || mgmt "$host" "${REAPPLY[$host]}" || true
    fi
    mgmt "$host" "rm -rf /tmp/tfrb-orig /tmp/tfrb-conc-go /var/run/tunnelfix-rollback/tfrb-*" || true
  done
  rm -rf "$work"
  exit "$rc"
}
trap restore_lab EXIT

cat > "$work/inventory.yml" <<EOF
all:
  vars:
    ansible_user: root
    ansible_ssh_private_key_file: $SSH_KEY
    rollback_timeout_s: $ROLLBACK_TIMEOUT_S
    rollback_reconnect_timeout_s: $RECONNECT_TIMEOUT_S
    conc_rollback_timeout_s: $CONC_ROLLBACK_TIMEOUT_S
    conc_reconnect_timeout_s: $CONC_RECONNECT_TIMEOUT_S
  hosts:
    owrt:
      ansible_host: $OWRT_TUNNEL_IP
      ansible_ssh_common_args: >-
        -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
        -o ProxyCommand="ssh ${SSH_OPTS[*]} -W %h:%p root@${MGMT_IP[hub]}"
      ansible_python_interpreter: /nonexistent/python
      rollback_files: [/etc/config/network]
      rollback_broken_apply: uci set network.@wireguard_wg0[0].disabled=1 && uci commit network && ifup wg0
      rollback_harmless_apply: uci set network.wg0.tunnelfix_rollback_probe=1 && uci commit network && ifup wg0
      rollback_restore: ifup wg0
    hub:
      ansible_host: $HUB_TUNNEL_IP
      ansible_ssh_common_args: >-
        -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
        -o ProxyCommand="ssh ${SSH_OPTS[*]} -W %h:%p root@${MGMT_IP[peer]}"
      ansible_python_interpreter: /nonexistent/python
      rollback_files: [/etc/wireguard/wg0.conf]
      rollback_broken_apply: >-
        sed -i 's/^ListenPort *=.*/ListenPort = 51999/' /etc/wireguard/wg0.conf && systemctl restart wg-quick@wg0
      rollback_harmless_apply: >-
        printf '# tunnelfix rollback probe\n' >> /etc/wireguard/wg0.conf && systemctl restart wg-quick@wg0
      rollback_restore: systemctl restart wg-quick@wg0
EOF

# A ping that must cross the tunnel, from a host that starts the traffic itself (so a NATed peer
# without keepalive can take part): up to 60 s for the handshakes after a restart.
tunnel_ping() {
  local from=$1 to=$2 i
  for i in $(seq 1 30); do
    if mgmt "$from" "ping -c 1 -W 2 $to" >/dev/null 2>&1; then echo "ok: $from -> $to through the tunnel (try $i)"; return 0; fi
  done
  echo "FAIL: no ping from $from to $to through the tunnel"; return 1
}
through_tunnel() {   # ssh to the host's tunnel address the way the playbook does, up to ~60 s
  local host=$1 i
  for i in $(seq 1 12); do
    if ANSIBLE_TIMEOUT=8 ansible -i "$work/inventory.yml" "$host" -m ansible.builtin.raw -a true >/dev/null 2>&1; then
      echo "ok: $host reachable through its tunnel (try $i)"; return 0
    fi
    sleep 3
  done
  echo "FAIL: $host is not reachable through its tunnel; wg show on hub, owrt, peer:"
  for h in hub owrt peer; do mgmt "$h" "wg show wg0 | grep -v -i key" || true; done
  return 1
}

# 0. Two runs on owrt with the same guard (issue 30.5): run A in the background takes its snapshot, commits the
# breaking change and waits; once A holds the guard and the change is committed, run B must be refused naming A's
# run; then A goes on, cuts the tunnel and must be rolled back to ITS snapshot: the original file, byte for byte.
concurrent_check() {
  local host=owrt t0 holder="" i pid_a now failed=0
  [[ -n "${ORIG_SHA[$host]:-}" ]] || ORIG_SHA[$host]=$(sha_of "$host")
  mgmt "$host" "rm -rf /tmp/tfrb-orig /tmp/tfrb-conc-go && mkdir -m 700 /tmp/tfrb-orig && cp -p ${FILE[$host]} /tmp/tfrb-orig/file"
  echo "== concurrent: two runs on $host with the guard tfrb-conc (${FILE[$host]} sha256 ${ORIG_SHA[$host]})"
  t0=$(date +%s)
  through_tunnel "$host"
  ansible-playbook -i "$work/inventory.yml" tests/rollback/concurrent.yml --tags first > "$work/conc-a.log" 2>&1 &
  pid_a=$!
  # A's change is committed after its snapshot: then the guard names A's run ('none' from a version without a guard)
  for i in $(seq 1 60); do
    if [[ "$(mgmt "$host" "uci -q get network.@wireguard_wg0[0].disabled" 2>/dev/null || true)" == 1 ]]; then
      holder=$(mgmt "$host" "cut -d ' ' -f 1 /var/run/tunnelfix-rollback/tfrb-conc.lock/holder" 2>/dev/null || echo none)
      break
    fi
    sleep 0.5
  done
  [[ -n "$holder" ]] || { wait "$pid_a" || true; cat "$work/conc-a.log"; echo "FAIL: run A never committed its change"; return 1; }
  echo "$host: run A's change committed after $(( $(date +%s) - t0 )) s; the guard's holder: $holder"
  ansible-playbook -i "$work/inventory.yml" tests/rollback/concurrent.yml --tags second -e "conc_holder=$holder" \
    > "$work/conc-b.log" 2>&1 || true
  mgmt "$host" "touch /tmp/tfrb-conc-go"
  grep -A3 'CONCURRENT-B' "$work/conc-b.log" | sed -n '/msg:/,/^[^ ]/p' | tr -s ' \n' ' ' | cut -c1-400 || true; echo
  if grep -q "ok=.*failed=0" "$work/conc-b.log"; then echo "ok: run B refused while run A holds the guard"
  else cat "$work/conc-b.log"; echo "FAIL: run B was not refused naming run A"; failed=1; fi
  wait "$pid_a" || true
  grep -A3 'CONCURRENT-A' "$work/conc-a.log" | sed -n '/msg:/,/^[^ ]/p' | tr -s ' \n' ' ' | cut -c1-400 || true; echo
  if grep -q "ok=.*failed=0" "$work/conc-a.log"; then echo "ok: run A rolled back to its own snapshot"
  else cat "$work/conc-a.log"; echo "FAIL: run A was not rolled back to its own snapshot"; failed=1; fi
  now=$(sha_of "$host")
  if [[ "$now" == "${ORIG_SHA[$host]}" ]]; then
    echo "ok: $host ${FILE[$host]} byte-identical to the original after both runs (sha256 $now)"
  else echo "FAIL: $host ${FILE[$host]} sha256 $now after both runs, before ${ORIG_SHA[$host]}"; return 1; fi
  [[ $failed -eq 0 ]] || return 1
  [[ -z "$(mgmt "$host" "ls -A /var/run/tunnelfix-rollback")" ]] \
    || { mgmt "$host" "ls -lA /var/run/tunnelfix-rollback"; echo "FAIL: $host: left in /var/run/tunnelfix-rollback"; return 1; }
  through_tunnel "$host"
  mgmt "$host" "rm -rf /tmp/tfrb-orig /tmp/tfrb-conc-go"
  echo "concurrent: done in $(( $(date +%s) - t0 )) s"
}

start_all=$(date +%s)
# first, while every tunnel session is fresh (the hub's restarts below make owrt's handshake again)
if [[ " $CASES " == *" concurrent "* ]]; then concurrent_check; fi
for host in owrt hub; do
  [[ " $CASES " == *" $host "* ]] || continue
  ORIG_SHA[$host]=$(sha_of "$host")
  mgmt "$host" "rm -rf /tmp/tfrb-orig && mkdir -m 700 /tmp/tfrb-orig && cp -p ${FILE[$host]} /tmp/tfrb-orig/file"
  echo "== $host: ${FILE[$host]} sha256 ${ORIG_SHA[$host]} (over the management path)"
  through_tunnel "$host"

  t0=$(date +%s)
  ansible-playbook -i "$work/inventory.yml" tests/rollback/rollback.yml --limit "$host" --tags broken \
    | tee "$work/$host-broken.log" | grep -E 'ROLLBACK-RESULT|failed=' || true
  grep -q "ok=.*failed=0" "$work/$host-broken.log" || { cat "$work/$host-broken.log"; echo "FAIL: $host broken case"; exit 1; }
  echo "$host: broken change failed the host with the rollback after $(( $(date +%s) - t0 )) s (playbook)"
  now=$(sha_of "$host")
  [[ "$now" == "${ORIG_SHA[$host]}" ]] || { echo "FAIL: $host ${FILE[$host]} sha256 $now, before ${ORIG_SHA[$host]}"; exit 1; }
  echo "ok: $host ${FILE[$host]} byte-identical after the rollback (sha256 $now)"
  through_tunnel "$host"
  tunnel_ping owrt "$HUB_TUNNEL_IP"
  tunnel_ping peer "$HUB_TUNNEL_IP"

  ansible-playbook -i "$work/inventory.yml" tests/rollback/rollback.yml --limit "$host" --tags harmless \
    | tee "$work/$host-harmless.log" | grep -E 'ROLLBACK-RESULT|failed=' || true
  grep -q "ok=.*failed=0" "$work/$host-harmless.log" || { cat "$work/$host-harmless.log"; echo "FAIL: $host harmless case"; exit 1; }
  mgmt "$host" "grep -q 'tunnelfix.rollback.probe' ${FILE[$host]}" \
    || { echo "FAIL: $host: the confirmed harmless change is not in ${FILE[$host]}"; exit 1; }
  echo "ok: $host harmless change confirmed and kept"
  # put the original back (the probe line changes nothing that runs: no restart needed)
  mgmt "$host" "cp -p /tmp/tfrb-orig/file ${FILE[$host]} && rm -rf /tmp/tfrb-orig"
  [[ "$(sha_of "$host")" == "${ORIG_SHA[$host]}" ]] || { echo "FAIL: $host: could not put ${FILE[$host]} back"; exit 1; }
done
tunnel_ping owrt "$HUB_TUNNEL_IP"
tunnel_ping peer "$HUB_TUNNEL_IP"
echo "PASS: rollback scenario ($CASES) in $(( $(date +%s) - start_all )) s"
