#!/usr/bin/env bash
# The benchmark fleet: N lab-style hosts on their own management bridge, each with the faults the
# collection finds and fixes, planted as configuration; no traffic ever leaves a host's namespace.
#
# Usage: bench/fleet.sh up N     start (or re-verify) N hosts, write bench/state/inventory.yml
#        bench/fleet.sh down     remove every bench container, the bridge, inventory and counters
#        bench/fleet.sh reset    empty the remote-execution counters (no remote execution)
#
#   tfb-lnx-01 ... (ceil(N/2)): Debian image, systemd PID 1, sshd, wg-quick@wg0 (wireguard-go)
#   tfb-owrt-01 ... (floor(N/2)): the python-free OpenWrt-like image, dropbear, emulated uci
#   host bridge tfbench0 172.31.250.1/24; host veth tfbm-<l|o>NN <-> mgmt0 in the container
#
# Every uplink is a dummy device: the default route, the WireGuard endpoint 10.99.9.1 and the
# mwan3 track IPs lead into it and whatever is sent there is discarded inside the namespace.
# Root's login shell is bench's counting wrapper (/usr/local/sbin/tf-bench-shell): sshd and dropbear
# run every remote command as `$SHELL -c CMD`, so each line of bench/state/counts/<name>/execs
# (a bind mount) is one remote execution. The runner reads and resets the files on the host.
set -euo pipefail
umask 077
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "${BENCH_DIR}")"
# shellcheck source-path=SCRIPTDIR source=../lab/common.sh
source "${REPO_DIR}/lab/common.sh"   # IMAGE, OWRT_IMAGE, HOST_SYSCTL_ORIG, HOST_CC_ALLOWED, CONTAINERS_CONF
log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }
# shellcheck source-path=SCRIPTDIR source=common.sh
source "${BENCH_DIR}/common.sh"   # pid_of, nsx, put, ensure_host_cc_allowed, ensure/restore_host_inotify, wait_systemd, ssh_ok

STATE="${BENCH_DIR}/state"
COUNTS="${STATE}/counts"
KEY="${STATE}/id_ed25519"
WGDIR="${STATE}/wg"
INV="${STATE}/inventory.yml"
LABEL="tunnelfix.bench=true"
BRIDGE="tfbench0"
BRIDGE_IP="172.31.250.1"
COUNT_DIR_IN="/var/lib/tf-bench"            # the bind mount inside each container
WRAPPER="/usr/local/sbin/tf-bench-shell"
# Addresses inside each host (all on dummies; nothing is routed anywhere).
WAN_IP="10.99.1.2"; WAN_GW="10.99.1.1"      # Linux wan0 / OpenWrt eth1 ("wan", metric 10)
WWAN_IP="10.99.2.2"; WWAN_GW="10.99.2.1"    # OpenWrt wwan0 ("wanb", metric 20)
ENDPOINT="10.99.9.1"                        # the fake hub's endpoint: routed into the dummy
TUN_CIDR="10.45.0.0/24"

lnx_name() { printf 'tfb-lnx-%02d' "$1"; }
owrt_name() { printf 'tfb-owrt-%02d' "$1"; }
# Management address: Linux i -> .10+2(i-1), OpenWrt i -> .11+2(i-1) (N <= 200).
mgmt_ip() { local kind="$1" i="$2"; if [[ "${kind}" == lnx ]]; then echo "172.31.250.$((8 + 2 * i))"; else echo "172.31.250.$((9 + 2 * i))"; fi; }
host_if() { local kind="$1" i="$2"; printf 'tfbm-%s%02d' "${kind:0:1}" "${i}"; }

reset_counts() {
  local f
  for f in "${COUNTS}"/*/execs; do [[ -e "${f}" ]] && : > "${f}"; done
  return 0
}

down() {
  local ids
  ids="$(podman ps -a -q --filter "label=${LABEL}")"
  if [[ -n "${ids}" ]]; then
    # shellcheck disable=SC2086
    podman rm -f -t 0 ${ids} >/dev/null
    log "removed $(wc -w <<< "${ids}") bench containers"
  fi
  local l
  for l in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^tfbm-' || true); do
    ip link del dev "${l}" 2>/dev/null || true
  done
  ip link show dev "${BRIDGE}" &>/dev/null && ip link del dev "${BRIDGE}"
  rm -rf "${COUNTS}" "${WGDIR}" "${INV}" "${STATE}/logs"
  restore_host_inotify "${BENCH_SYSCTL_ORIG}"
  return 0
}

BENCH_SYSCTL_ORIG="/var/lib/tunnelfix-bench/host-sysctl.orig"

# The counting login shell for root; REAL is the shell it execs.
install_wrapper() {
  local root="$1" real="$2"
  put "${root}" "${WRAPPER}" 0755 <<W
#!/bin/sh
# tunnelfix bench (bench/fleet.sh): one line per remote execution, then the real shell.
read -r up _ < /proc/uptime
echo "\${up}" >> ${COUNT_DIR_IN}/execs
exec ${real} "\$@"
W
  sed -i "s|^root:\([^:]*:[^:]*:[^:]*:[^:]*:[^:]*\):.*|root:\1:${WRAPPER}|" "${root}/etc/passwd"
  grep -qx "${WRAPPER}" "${root}/etc/shells" 2>/dev/null || echo "${WRAPPER}" >> "${root}/etc/shells"
  mkdir -p "${root}/root/.ssh"
  chmod 0700 "${root}/root" "${root}/root/.ssh"   # dropbear refuses keys under a group/world-writable home
  put "${root}" /root/.ssh/authorized_keys 0600 < "${KEY}.pub"
}

# Management veth + address.
wire_mgmt() {
  local name="$1" pid="$2" hif="$3" ip="$4"
  if ! { ip link show dev "${hif}" &>/dev/null && nsx "${pid}" ip link show dev mgmt0 &>/dev/null; }; then
    ip link del dev "${hif}" 2>/dev/null || true
    nsx "${pid}" ip link del dev mgmt0 2>/dev/null || true
    ip link add name "${hif}" type veth peer name mgmt0 netns "${pid}"
    ip neigh flush to "${ip}" dev "${BRIDGE}" 2>/dev/null || true
  fi
  ip link set dev "${hif}" master "${BRIDGE}" up
  nsx "${pid}" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  nsx "${pid}" ip addr replace "${ip}/24" dev mgmt0
  nsx "${pid}" ip link set dev mgmt0 up
  nsx "${pid}" ip link set dev lo up
}

# A discard device (+ address), idempotent: ifb, since this kernel has no dummy module. An ifb
# device is NOARP and drops every packet not redirected to it by tc: nothing leaves the namespace.
ensure_dummy() {
  local pid="$1" dev="$2" cidr="$3"
  nsx "${pid}" ip link show dev "${dev}" &>/dev/null || nsx "${pid}" ip link add name "${dev}" type ifb
  nsx "${pid}" ip addr replace "${cidr}" dev "${dev}"
  nsx "${pid}" ip link set dev "${dev}" up
}
ensure_bridge() {
  local pid="$1" br="$2" port="$3" cidr="$4"
  if ! nsx "${pid}" ip link show dev "${br}" &>/dev/null; then
    nsx "${pid}" ip link add name "${br}" type bridge
    nsx "${pid}" ip link add name "${port}" type veth peer name "${port}-client"
    nsx "${pid}" ip link set dev "${port}" master "${br}" up
    nsx "${pid}" ip link set dev "${port}-client" up
    nsx "${pid}" ip link set dev "${br}" up
    nsx "${pid}" ip addr replace "${cidr}" dev "${br}"
  fi
}

wg_keys() {  # wg_keys NAME: a fresh private key file (never printed)
  [[ -s "${WGDIR}/$1.key" ]] || wg genkey > "${WGDIR}/$1.key"
}

setup_lnx() {
  local i="$1" name pid root ip
  name="$(lnx_name "${i}")"; ip="$(mgmt_ip lnx "${i}")"
  pid="$(pid_of "${name}")"; root="/proc/${pid}/root"
  wait_systemd "${name}" || return 1
  install_wrapper "${root}" /bin/bash
  wire_mgmt "${name}" "${pid}" "$(host_if lnx "${i}")" "${ip}"
  ensure_dummy "${pid}" wan0 "${WAN_IP}/24"
  nsx "${pid}" ip route replace default via "${WAN_GW}" dev wan0
  ensure_bridge "${pid}" br0 veth0 "192.168.77.1/24"
  if [[ ! -e "${root}/etc/tunnelfix-bench-configured" ]]; then
    wg_keys "${name}"
    put "${root}" /etc/wireguard/wg0.conf 0600 <<C
# tunnelfix bench (bench/fleet.sh): a peer without PersistentKeepalive; its endpoint is a dummy.
[Interface]
Address = 10.45.0.$((100 + i))/24
PrivateKey = $(cat "${WGDIR}/${name}.key")

[Peer]
# fake hub (valid key, endpoint routed into wan0, a dummy device)
PublicKey = $(cat "${WGDIR}/fakehub.pub")
Endpoint = ${ENDPOINT}:51820
AllowedIPs = ${TUN_CIDR}
C
    put "${root}" /etc/sysctl.d/10-tunnelfix-bench.conf 0644 <<C
# tunnelfix bench (bench/fleet.sh): starting state.
net.ipv4.tcp_congestion_control = cubic
net.ipv4.ip_forward = 1
C
    nsx "${pid}" sysctl -q -w net.ipv4.tcp_congestion_control=cubic net.ipv4.ip_forward=1
    podman exec "${name}" systemctl -q enable --now wg-quick@wg0.service
    touch "${root}/etc/tunnelfix-bench-configured"
  fi
}

setup_owrt() {
  local i="$1" name pid root ip
  name="$(owrt_name "${i}")"; ip="$(mgmt_ip owrt "${i}")"
  pid="$(pid_of "${name}")"; root="/proc/${pid}/root"
  install_wrapper "${root}" /bin/ash
  wire_mgmt "${name}" "${pid}" "$(host_if owrt "${i}")" "${ip}"
  put "${root}" /etc/tunnelfix/hooks/ifup 0755 < "${REPO_DIR}/lab/owrt/ifup"
  ensure_dummy "${pid}" eth1 "${WAN_IP}/24"
  ensure_dummy "${pid}" wwan0 "${WWAN_IP}/24"
  if [[ ! -e "${root}/etc/tunnelfix/bench-configured" ]]; then
    wg_keys "${name}"
    put "${root}" /etc/config/network 0600 <<C

config interface 'loopback'
	option device 'lo'
	option proto 'static'
	option ipaddr '127.0.0.1'
	option netmask '255.0.0.0'

config interface 'wan'
	option device 'eth1'
	option proto 'static'
	option ipaddr '${WAN_IP}'
	option netmask '255.255.255.0'
	option gateway '${WAN_GW}'
	option metric '10'

config interface 'wanb'
	option device 'wwan0'
	option proto 'static'
	option ipaddr '${WWAN_IP}'
	option netmask '255.255.255.0'
	option gateway '${WWAN_GW}'
	option metric '20'

config interface 'wg0'
	option proto 'wireguard'
	option private_key '$(cat "${WGDIR}/${name}.key")'
	option listen_port '51820'
	list addresses '10.45.0.$((200 + i))/24'

config wireguard_wg0 'hub'
	option description 'fake hub (endpoint routed into a dummy uplink)'
	option public_key '$(cat "${WGDIR}/fakehub.pub")'
	option endpoint_host '${ENDPOINT}'
	option endpoint_port '51820'
	list allowed_ips '${TUN_CIDR}'
	option route_allowed_ips '1'
C
    put "${root}" /etc/config/mwan3 0644 <<C

config globals 'globals'
	option mmx_mask '0x3F00'

config interface 'wan'
	option enabled '1'
	option family 'ipv4'
	option track_method 'ping'
	list track_ip '${WAN_GW}'
	option count '1'
	option timeout '1'
	option interval '1'
	option down '3'
	option up '3'

config interface 'wanb'
	option enabled '1'
	option family 'ipv4'
	option track_method 'ping'
	list track_ip '${WWAN_GW}'
	option count '1'
	option timeout '1'
	option interval '1'
	option down '3'
	option up '3'

config member 'wan_m1_w3'
	option interface 'wan'
	option metric '1'
	option weight '3'

config member 'wanb_m2_w3'
	option interface 'wanb'
	option metric '2'
	option weight '3'

config policy 'wan_wanb'
	list use_member 'wan_m1_w3'
	list use_member 'wanb_m2_w3'
	option last_resort 'unreachable'

config rule 'default_rule_v4'
	option dest_ip '0.0.0.0/0'
	option use_policy 'wan_wanb'
	option family 'ipv4'
C
    put "${root}" /etc/config/banip 0644 <<C

config banip 'global'
	option ban_enabled '1'
	option ban_autodetect '0'
	list ban_dev 'eth1'
	list ban_dev 'wwan0'
C
    rm -rf "${root}/tmp/.uci/network" "${root}/tmp/.uci/mwan3" "${root}/tmp/.uci/banip"
    nsx "${pid}" ip link del dev wg0 2>/dev/null || true
    mkdir -p "${root}/etc/tunnelfix"; touch "${root}/etc/tunnelfix/bench-configured"
  fi
  # "Boot" as the lab does: the backup uplink's default route first, so ifup pins the endpoint
  # /32 to wwan0; then the preferred uplink with the better metric.
  if ! nsx "${pid}" ip link show dev wg0 &>/dev/null; then
    nsx "${pid}" ip route del default dev eth1 2>/dev/null || true
    nsx "${pid}" ip route replace default via "${WWAN_GW}" dev wwan0 proto static metric 20
    nsx "${pid}" sysctl -q -w net.ipv4.tcp_congestion_control=cubic
    podman exec "${name}" /sbin/ifup wg0
  fi
  nsx "${pid}" ip route replace default via "${WAN_GW}" dev eth1 proto static metric 10
  nsx "${pid}" ip route replace default via "${WWAN_GW}" dev wwan0 proto static metric 20
  ensure_bridge "${pid}" br-lan lan1 "192.168.1.1/24"
  nsx "${pid}" sysctl -q -w net.ipv4.ip_forward=1
  # The image's banIP model (as the lab's): start returns at once, the table is built in the background.
  if ! nsx "${pid}" nft list table inet banIP &>/dev/null; then
    podman exec "${name}" /etc/init.d/banip start || true   # exit 1: its lock is held by a run in progress
    local n=0
    until nsx "${pid}" nft list table inet banIP &>/dev/null; do
      n=$((n + 1)); [[ "${n}" -le 20 ]] || die "${name}: banIP's table not loaded 10 s after /etc/init.d/banip start"
      sleep 0.5
    done
  fi
}

up() {
  local n="$1" nl no i name
  [[ "${n}" =~ ^[0-9]+$ && "${n}" -ge 1 && "${n}" -le 200 ]] || die "N must be 1-200, got '${n}'"
  nl=$(( (n + 1) / 2 )); no=$(( n / 2 ))
  SECONDS=0
  podman image exists "${IMAGE}" || die "missing ${IMAGE} (make images)"
  podman image exists "${OWRT_IMAGE}" || die "missing ${OWRT_IMAGE} (make images)"
  mkdir -p "${STATE}" "${COUNTS}" "${WGDIR}"
  [[ -s "${KEY}" ]] || ssh-keygen -q -t ed25519 -N '' -C tunnelfix-bench -f "${KEY}"
  if [[ ! -s "${WGDIR}/fakehub.pub" ]]; then wg genkey | wg pubkey > "${WGDIR}/fakehub.pub"; fi
  ensure_host_cc_allowed
  ensure_host_inotify "${BENCH_SYSCTL_ORIG}" $(( 1024 + 32 * n ))

  # Hosts beyond N (a larger fleet before) go.
  local extra=()
  while read -r name; do
    [[ -n "${name}" ]] || continue
    local k="${name#tfb-}" idx; k="${k%-*}"; idx=$((10#${name##*-}))
    if { [[ "${k}" == lnx ]] && (( idx > nl )); } || { [[ "${k}" == owrt ]] && (( idx > no )); }; then extra+=("${name}"); fi
  done < <(podman ps -a --filter "label=${LABEL}" --format '{{.Names}}')
  if ((${#extra[@]})); then podman rm -f -t 0 "${extra[@]}" >/dev/null; log "removed ${extra[*]}"; fi

  if ! ip link show dev "${BRIDGE}" &>/dev/null; then ip link add name "${BRIDGE}" type bridge; fi
  sysctl -q -w "net.ipv6.conf.${BRIDGE}.disable_ipv6=1"
  ip addr replace "${BRIDGE_IP}/24" dev "${BRIDGE}"
  ip link set dev "${BRIDGE}" up

  # Containers, created in parallel.
  local pids=()
  start_one() {  # start_one NAME KIND
    local name="$1" kind="$2"
    mkdir -p "${COUNTS}/${name}"; touch "${COUNTS}/${name}/execs"
    if podman container exists "${name}"; then
      [[ "$(podman inspect -f '{{.State.Running}}' "${name}")" == true ]] || podman start "${name}" >/dev/null
      return
    fi
    if [[ "${kind}" == lnx ]]; then
      podman run -d --name "${name}" --hostname "${name}" --label "${LABEL}" --privileged \
        --systemd=always --network none -v "${COUNTS}/${name}:${COUNT_DIR_IN}" "${IMAGE}" >/dev/null
    else
      podman run -d --name "${name}" --hostname "${name}" --label "${LABEL}" --privileged \
        --network none -v "${COUNTS}/${name}:${COUNT_DIR_IN}" "${OWRT_IMAGE}" /sbin/tf-init >/dev/null
    fi
  }
  for ((i = 1; i <= nl; i++)); do start_one "$(lnx_name "${i}")" lnx & pids+=($!); done
  for ((i = 1; i <= no; i++)); do start_one "$(owrt_name "${i}")" owrt & pids+=($!); done
  local p rc=0
  for p in "${pids[@]}"; do wait "${p}" || rc=1; done
  (( rc == 0 )) || die "starting containers failed"
  log "${n} containers running after ${SECONDS}s"

  # Configuration and wiring, in parallel per host (each logs to its own file on failure).
  pids=()
  mkdir -p "${STATE}/logs"
  for ((i = 1; i <= nl; i++)); do setup_lnx "${i}" > "${STATE}/logs/$(lnx_name "${i}").log" 2>&1 & pids+=($!); done
  for ((i = 1; i <= no; i++)); do setup_owrt "${i}" > "${STATE}/logs/$(owrt_name "${i}").log" 2>&1 & pids+=($!); done
  for p in "${pids[@]}"; do wait "${p}" || rc=1; done
  if (( rc != 0 )); then tail -n 5 "${STATE}"/logs/*.log >&2; die "host setup failed (logs in ${STATE}/logs/)"; fi
  log "hosts configured after ${SECONDS}s"

  # Every host answers ssh (one remote execution each; the runner resets the counters).
  local bad=()
  for ((i = 1; i <= nl; i++)); do
    local ok=false _t; for _t in 1 2 3 4 5 6 7 8 9 10; do if ssh_ok "${KEY}" "$(mgmt_ip lnx "${i}")"; then ok=true; break; fi; sleep 1; done
    "${ok}" || bad+=("$(lnx_name "${i}")")
  done
  for ((i = 1; i <= no; i++)); do
    local ok=false _t; for _t in 1 2 3 4 5 6 7 8 9 10; do if ssh_ok "${KEY}" "$(mgmt_ip owrt "${i}")"; then ok=true; break; fi; sleep 1; done
    "${ok}" || bad+=("$(owrt_name "${i}")")
  done
  ((${#bad[@]} == 0)) || die "no ssh to ${bad[*]}"

  write_inventory "${nl}" "${no}"
  reset_counts
  log "fleet of ${n} (${nl} Linux, ${no} OpenWrt) ready in ${SECONDS}s: ${INV}"
  echo "${INV}"
}

write_inventory() {
  local nl="$1" no="$2" i tmp
  tmp="$(mktemp "${STATE}/.inventory.XXXXXX")"
  {
    cat <<Y
---
# Written by bench/fleet.sh; removed by bench/fleet.sh down.
all:
  vars:
    ansible_user: root
    ansible_ssh_private_key_file: ${KEY}
    ansible_ssh_common_args: "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
    # Set, not discovered: interpreter discovery costs one more remote execution per host.
    ansible_python_interpreter: /usr/bin/python3
    # No hub in the bench fleet (diagnose runs facts-only); the peers' endpoints are dummies.
    wireguard_keepalive_persistent_keepalive_s: 25
  children:
    tunnelfix_wireguard_peers:
      hosts:
Y
    for ((i = 1; i <= nl; i++)); do
      printf '        %s: {ansible_host: %s, bridge_gso_off_bridges: [br0]}\n' "$(lnx_name "${i}")" "$(mgmt_ip lnx "${i}")"
    done
    for ((i = 1; i <= no; i++)); do
      printf '        %s: {ansible_host: %s, bridge_gso_off_bridges: [br-lan]}\n' "$(owrt_name "${i}")" "$(mgmt_ip owrt "${i}")"
    done
    if ((no > 0)); then printf '    tunnelfix_openwrt:\n      hosts:\n'; else printf '    tunnelfix_openwrt:\n      hosts: {}\n'; fi
    for ((i = 1; i <= no; i++)); do printf '        %s: {}\n' "$(owrt_name "${i}")"; done
    cat <<Y
      vars:
        ansible_python_interpreter: /nonexistent/python   # proves nothing here needs Python
        openwrt_mwan3_wg_preferred_uplink: wan
Y
  } > "${tmp}"
  chmod 0644 "${tmp}"; mv -f "${tmp}" "${INV}"
}

[[ "$(id -u)" -eq 0 ]] || die "must run as root (podman, veths, nsenter)"
case "${1:-}" in
  up) [[ $# -eq 2 ]] || die "usage: bench/fleet.sh up N"; up "$2" ;;
  down) down ;;
  reset) reset_counts ;;
  *) sed -n '2,19p' "$0"; exit 2 ;;
esac
