#!/usr/bin/env bash
# The slots benchmark's fleet (bench/slots.py): H WireGuard hubs and N peers in the lab's style, real
# tunnels and real iperf3 flows, each hub's path shaped; no traffic leaves these containers' namespaces
# and the host's bridges.
#
# Usage: bench/slots_fleet.sh up H N   start (or re-check) H hubs and N peers, write bench/state/slots/inventory.yml
#        bench/slots_fleet.sh down     remove every container of it, its bridges, veths, keys and inventory
#
#   tfs-hub-01 ... tfs-hub-H, tfs-peer-01 ... tfs-peer-N: the lab's Debian image, systemd PID 1, sshd,
#   wg-quick@wg0 (wireguard-go). Peer j belongs to hub ((j-1) mod H) + 1.
#   management: host bridge tfsmgmt0 172.31.251.1/24; host veth tfsm-<h|p>NN <-> mgmt0;
#     hub h 172.31.251.(10+h), peer j 172.31.251.(100+j)
#   WireGuard underlay: host bridge tfswan0 (no host address); host veth tfsw-<h|p>NN <-> wan0;
#     hub h 10.98.0.(10+h), peer j 10.98.0.(100+j); UDP 51820 on the hub
#   tunnels: hub h 10.46.h.1/24, its peer j 10.46.h.(10+j); the peer has PersistentKeepalive 25
#   each hub's path: tbf at TFS_PATH_BPS bit/s (default 10000000) on the host veth tfsw-hNN (peers ->
#     hub) and on the hub's wan0 (hub -> peers), the lab's burst and queue limit (lab/common.sh)
set -euo pipefail
umask 077
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "${BENCH_DIR}")"
# shellcheck source-path=SCRIPTDIR source=../lab/common.sh
source "${REPO_DIR}/lab/common.sh"   # IMAGE, LAB_TBF_BURST, LAB_TBF_LATENCY, HOST_SYSCTL_ORIG, HOST_CC_ALLOWED
log() { printf '[slots-fleet] %s\n' "$*" >&2; }
die() { printf '[slots-fleet] ERROR: %s\n' "$*" >&2; exit 1; }
# shellcheck source-path=SCRIPTDIR source=common.sh
source "${BENCH_DIR}/common.sh"   # pid_of, nsx, put, ensure_host_cc_allowed, ensure/restore_host_inotify, wait_systemd, ssh_ok

STATE="${BENCH_DIR}/state/slots"
KEY="${STATE}/id_ed25519"
WGDIR="${STATE}/wg"
INV="${STATE}/inventory.yml"
LABEL="tunnelfix.bench.slots=true"
MGMT_BRIDGE="tfsmgmt0"
MGMT_HOST_IP="172.31.251.1"
WAN_BRIDGE="tfswan0"
WG_LISTEN_PORT=51820
PATH_BPS="${TFS_PATH_BPS:-10000000}"
SYSCTL_RECORD="/var/lib/tunnelfix-bench/slots-host-sysctl.orig"
MAX_HUBS=50
MAX_PEERS=150

hub_name() { printf 'tfs-hub-%02d' "$1"; }
peer_name() { printf 'tfs-peer-%02d' "$1"; }
hub_of() { echo $(( ($1 - 1) % $2 + 1 )); }   # hub_of PEER H
mgmt_ip() { if [[ "$1" == hub ]]; then echo "172.31.251.$((10 + $2))"; else echo "172.31.251.$((100 + $2))"; fi; }
wan_ip() { if [[ "$1" == hub ]]; then echo "10.98.0.$((10 + $2))"; else echo "10.98.0.$((100 + $2))"; fi; }
hub_tunnel_ip() { echo "10.46.$1.1"; }
peer_tunnel_ip() { echo "10.46.$(hub_of "$1" "$2").$((10 + $1))"; }   # peer_tunnel_ip PEER H
host_if() { printf 'tfs%s-%s%02d' "$1" "${2:0:1}" "$3"; }   # host_if m|w hub|peer I

down() {
  local ids l
  ids="$(podman ps -a -q --filter "label=${LABEL}")"
  if [[ -n "${ids}" ]]; then
    # shellcheck disable=SC2086
    podman rm -f -t 0 ${ids} >/dev/null
    log "removed $(wc -w <<< "${ids}") containers"
  fi
  for l in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^tfs[mw]-' || true); do
    ip link del dev "${l}" 2>/dev/null || true
  done
  for l in "${MGMT_BRIDGE}" "${WAN_BRIDGE}"; do
    if ip link show dev "${l}" &>/dev/null; then ip link del dev "${l}"; fi
  done
  rm -rf "${WGDIR}" "${INV}" "${STATE}/logs"
  restore_host_inotify "${SYSCTL_RECORD}"
  return 0
}

ensure_bridge() {  # ensure_bridge NAME [CIDR]
  ip link show dev "$1" &>/dev/null || ip link add name "$1" type bridge
  sysctl -q -w "net.ipv6.conf.$1.disable_ipv6=1"
  [[ -z "${2:-}" ]] || ip addr replace "$2" dev "$1"
  ip link set dev "$1" up
}

# wire PID HOSTIF BRIDGE INNER CIDR: a veth HOSTIF (in BRIDGE) <-> INNER (in the container, CIDR).
wire() {
  local pid="$1" hif="$2" br="$3" inner="$4" cidr="$5"
  if ! { ip link show dev "${hif}" &>/dev/null && nsx "${pid}" ip link show dev "${inner}" &>/dev/null; }; then
    ip link del dev "${hif}" 2>/dev/null || true
    nsx "${pid}" ip link del dev "${inner}" 2>/dev/null || true
    ip link add name "${hif}" type veth peer name "${inner}" netns "${pid}"
  fi
  ip link set dev "${hif}" master "${br}" up
  nsx "${pid}" ip addr replace "${cidr}" dev "${inner}"
  nsx "${pid}" ip link set dev "${inner}" up
}

# shape PID DEV: tbf at PATH_BPS as DEV's root qdisc, in PID's namespace (or the host's for PID 0).
shape() {
  local pid="$1" dev="$2" run=()
  [[ "${pid}" == 0 ]] || run=(nsenter -t "${pid}" -n --)
  "${run[@]}" tc qdisc replace dev "${dev}" root tbf rate "${PATH_BPS}bit" burst "${LAB_TBF_BURST}" latency "${LAB_TBF_LATENCY}"
}

wg_key() {  # wg_key NAME: a key pair under WGDIR (the private key is never printed)
  [[ -s "${WGDIR}/$1.key" ]] || wg genkey > "${WGDIR}/$1.key"
  [[ -s "${WGDIR}/$1.pub" ]] || wg pubkey < "${WGDIR}/$1.key" > "${WGDIR}/$1.pub"
}

# setup KIND I H N: the container's login, wiring, shaping and WireGuard.
setup() {
  local kind="$1" i="$2" h="$3" n="$4" name pid root conf
  if [[ "${kind}" == hub ]]; then name="$(hub_name "${i}")"; else name="$(peer_name "${i}")"; fi
  wait_systemd "${name}" || return 1
  pid="$(pid_of "${name}")"; root="/proc/${pid}/root"
  mkdir -p "${root}/root/.ssh"; chmod 0700 "${root}/root" "${root}/root/.ssh"
  put "${root}" /root/.ssh/authorized_keys 0600 < "${KEY}.pub"
  nsx "${pid}" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  nsx "${pid}" ip link set dev lo up
  wire "${pid}" "$(host_if m "${kind}" "${i}")" "${MGMT_BRIDGE}" mgmt0 "$(mgmt_ip "${kind}" "${i}")/24"
  wire "${pid}" "$(host_if w "${kind}" "${i}")" "${WAN_BRIDGE}" wan0 "$(wan_ip "${kind}" "${i}")/24"
  if [[ "${kind}" == hub ]]; then
    shape 0 "$(host_if w hub "${i}")"
    shape "${pid}" wan0
  fi
  # The fixes' end state, so that verify finds nothing to fail on: bbr (allowed on the host), forwarding off.
  put "${root}" /etc/sysctl.d/10-tunnelfix-slots.conf 0644 <<C
# tunnelfix slots bench (bench/slots_fleet.sh)
net.ipv4.tcp_congestion_control = bbr
net.ipv4.ip_forward = 0
C
  nsx "${pid}" sysctl -q -w net.ipv4.tcp_congestion_control=bbr net.ipv4.ip_forward=0
  conf="$(
    if [[ "${kind}" == hub ]]; then
      printf '# tunnelfix slots bench (bench/slots_fleet.sh): hub %s\n[Interface]\nAddress = %s/24\nListenPort = %s\nPrivateKey = %s\n' \
        "${i}" "$(hub_tunnel_ip "${i}")" "${WG_LISTEN_PORT}" "$(cat "${WGDIR}/${name}.key")"
      local j
      for ((j = 1; j <= n; j++)); do
        (( $(hub_of "${j}" "${h}") == i )) || continue
        printf '\n[Peer]\n# %s\nPublicKey = %s\nAllowedIPs = %s/32\n' \
          "$(peer_name "${j}")" "$(cat "${WGDIR}/$(peer_name "${j}").pub")" "$(peer_tunnel_ip "${j}" "${h}")"
      done
    else
      local hub; hub="$(hub_of "${i}" "${h}")"
      printf '# tunnelfix slots bench (bench/slots_fleet.sh): peer %s of hub %s\n[Interface]\nAddress = %s/24\nPrivateKey = %s\n' \
        "${i}" "${hub}" "$(peer_tunnel_ip "${i}" "${h}")" "$(cat "${WGDIR}/${name}.key")"
      printf '\n[Peer]\n# %s\nPublicKey = %s\nEndpoint = %s:%s\nAllowedIPs = 10.46.%s.0/24\nPersistentKeepalive = 25\n' \
        "$(hub_name "${hub}")" "$(cat "${WGDIR}/$(hub_name "${hub}").pub")" "$(wan_ip hub "${hub}")" "${WG_LISTEN_PORT}" "${hub}"
    fi
  )"
  if [[ "$(cat "${root}/etc/wireguard/wg0.conf" 2>/dev/null || true)" != "${conf}" ]]; then
    put "${root}" /etc/wireguard/wg0.conf 0600 <<< "${conf}"
    podman exec "${name}" systemctl -q enable wg-quick@wg0.service
    podman exec "${name}" systemctl restart wg-quick@wg0.service
  else
    podman exec "${name}" systemctl -q enable --now wg-quick@wg0.service
  fi
}

write_inventory() {
  local h="$1" n="$2" i tmp
  tmp="$(mktemp "${STATE}/.inventory.XXXXXX")"
  {
    cat <<Y
---
# Written by bench/slots_fleet.sh up ${h} ${n}; removed by bench/slots_fleet.sh down.
all:
  vars:
    ansible_user: root
    ansible_ssh_private_key_file: ${KEY}
    ansible_ssh_common_args: "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
    # Set, not discovered: interpreter discovery costs one more remote execution per host.
    ansible_python_interpreter: /usr/bin/python3
    # Each hub's path (tbf on both directions, bench/slots_fleet.sh): the report's reference and verify's floor.
    tunnelfix_path_bits_per_second: ${PATH_BPS}
  children:
    tunnelfix_wireguard_hubs:
      hosts:
Y
    for ((i = 1; i <= h; i++)); do
      printf '        %s: {ansible_host: %s, tunnelfix_tunnel_address: %s}\n' "$(hub_name "${i}")" "$(mgmt_ip hub "${i}")" "$(hub_tunnel_ip "${i}")"
    done
    printf '    tunnelfix_wireguard_peers:\n      hosts:\n'
    for ((i = 1; i <= n; i++)); do
      printf '        %s: {ansible_host: %s, tunnelfix_tunnel_address: %s, tunnelfix_tunnel_hub: %s}\n' \
        "$(peer_name "${i}")" "$(mgmt_ip peer "${i}")" "$(peer_tunnel_ip "${i}" "${h}")" "$(hub_name "$(hub_of "${i}" "${h}")")"
    done
  } > "${tmp}"
  chmod 0644 "${tmp}"; mv -f "${tmp}" "${INV}"
}

up() {
  local h="$1" n="$2" i name p rc=0
  [[ "${h}" =~ ^[0-9]+$ && "${h}" -ge 1 && "${h}" -le "${MAX_HUBS}" ]] || die "H must be 1-${MAX_HUBS}, got '${h}'"
  [[ "${n}" =~ ^[0-9]+$ && "${n}" -ge 1 && "${n}" -le "${MAX_PEERS}" ]] || die "N must be 1-${MAX_PEERS}, got '${n}'"
  [[ "${PATH_BPS}" =~ ^[0-9]+$ && "${PATH_BPS}" -ge 100000 ]] || die "TFS_PATH_BPS must be whole bit/s, at least 100000, got '${PATH_BPS}'"
  SECONDS=0
  podman image exists "${IMAGE}" || die "missing ${IMAGE} (make images)"
  mkdir -p "${STATE}" "${WGDIR}" "${STATE}/logs"
  [[ -s "${KEY}" ]] || ssh-keygen -q -t ed25519 -N '' -C tunnelfix-slots-bench -f "${KEY}"
  ensure_host_cc_allowed
  ensure_host_inotify "${SYSCTL_RECORD}" $(( 1024 + 32 * (h + n) ))

  # A different H or N before: start afresh (the tunnels' pairing changes).
  local have; have="$(podman ps -a --filter "label=${LABEL}" --format '{{.Names}}' | sort | tr '\n' ' ')"
  local want=""; for ((i = 1; i <= h; i++)); do want+="$(hub_name "${i}") "; done
  for ((i = 1; i <= n; i++)); do want+="$(peer_name "${i}") "; done
  want="$(tr ' ' '\n' <<< "${want}" | sed '/^$/d' | sort | tr '\n' ' ')"
  if [[ -n "${have}" && "${have}" != "${want}" ]]; then log "another fleet (${have% }) is up: down first"; down; mkdir -p "${STATE}" "${WGDIR}" "${STATE}/logs"; fi

  ensure_bridge "${MGMT_BRIDGE}" "${MGMT_HOST_IP}/24"
  ensure_bridge "${WAN_BRIDGE}"
  for ((i = 1; i <= h; i++)); do wg_key "$(hub_name "${i}")"; done
  for ((i = 1; i <= n; i++)); do wg_key "$(peer_name "${i}")"; done

  local pids=()
  start_one() {
    if podman container exists "$1"; then
      [[ "$(podman inspect -f '{{.State.Running}}' "$1")" == true ]] || podman start "$1" >/dev/null
      return
    fi
    podman run -d --name "$1" --hostname "$1" --label "${LABEL}" --privileged \
      --systemd=always --network none "${IMAGE}" >/dev/null
  }
  for ((i = 1; i <= h; i++)); do start_one "$(hub_name "${i}")" & pids+=($!); done
  for ((i = 1; i <= n; i++)); do start_one "$(peer_name "${i}")" & pids+=($!); done
  for p in "${pids[@]}"; do wait "${p}" || rc=1; done
  (( rc == 0 )) || die "starting containers failed"
  log "$((h + n)) containers running after ${SECONDS}s"

  pids=()
  for ((i = 1; i <= h; i++)); do setup hub "${i}" "${h}" "${n}" > "${STATE}/logs/$(hub_name "${i}").log" 2>&1 & pids+=($!); done
  for ((i = 1; i <= n; i++)); do setup peer "${i}" "${h}" "${n}" > "${STATE}/logs/$(peer_name "${i}").log" 2>&1 & pids+=($!); done
  for p in "${pids[@]}"; do wait "${p}" || rc=1; done
  if (( rc != 0 )); then tail -n 5 "${STATE}"/logs/*.log >&2; die "setup failed (logs in ${STATE}/logs/)"; fi
  log "hosts configured after ${SECONDS}s"

  # Every host answers ssh, and every peer reaches its hub through the tunnel.
  local bad=() ok _t pid
  for ((i = 1; i <= h + n; i++)); do
    local kind=hub k="${i}"; (( i > h )) && { kind=peer; k=$((i - h)); }
    ok=false; for _t in $(seq 1 10); do if ssh_ok "${KEY}" "$(mgmt_ip "${kind}" "${k}")"; then ok=true; break; fi; sleep 1; done
    "${ok}" || bad+=("${kind} ${k}: ssh")
  done
  for ((i = 1; i <= n; i++)); do
    pid="$(pid_of "$(peer_name "${i}")")"
    ok=false; for _t in $(seq 1 10); do if nsx "${pid}" ping -n -q -c 1 -W 1 "$(hub_tunnel_ip "$(hub_of "${i}" "${h}")")" >/dev/null; then ok=true; break; fi; done
    "${ok}" || bad+=("$(peer_name "${i}"): no ping to its hub through wg0")
  done
  ((${#bad[@]} == 0)) || die "not ready: ${bad[*]}"

  write_inventory "${h}" "${n}"
  log "${h} hubs and ${n} peers ready in ${SECONDS}s: ${INV}"
  echo "${INV}"
}

[[ "$(id -u)" -eq 0 ]] || die "must run as root (podman, veths, nsenter, tc)"
case "${1:-}" in
  up) [[ $# -eq 3 ]] || die "usage: bench/slots_fleet.sh up H N"; up "$2" "$3" ;;
  down) down ;;
  *) sed -n '2,17p' "$0"; exit 2 ;;
esac
