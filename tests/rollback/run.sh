#!/usr/bin/env bash
# Lab proof of guarded_apply's automatic rollback (docs/rollback.md). Needs the running lab (make lab-up).
# For owrt (OpenWrt-like: BusyBox, no Python, no systemd) and hub (Debian, systemd), each reached
# THROUGH its WireGuard tunnel (owrt 10.44.0.3 via the hub, hub 10.44.0.1 via the peer):
#   1. a deliberately broken change (owrt: its only peer disabled + ifup wg0; hub: wrong ListenPort +
#      restart wg-quick@wg0) must fail the host with "change rolled back: ..." after the revert's
#      deadline; then, checked over the MANAGEMENT path: the config file's sha256 equals the one from
#      before, the host is reachable through the tunnel again, and a ping crosses the tunnel;
#   2. a harmless change (a comment line, an unused uci option) must be confirmed and kept.
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
    mgmt "$host" "rm -rf /tmp/tfrb-orig /var/run/tunnelfix-rollback/tfrb-*" || true
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

start_all=$(date +%s)
for host in owrt hub; do
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
echo "PASS: rollback scenario (owrt and hub) in $(( $(date +%s) - start_all )) s"
