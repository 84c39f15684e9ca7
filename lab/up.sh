#!/usr/bin/env bash
# Start (or re-verify) the tunnelfix lab: a WireGuard hub and a peer behind a NAT router whose
# UDP conntrack entries expire after 8 s, over an emulated 40 Mbit/s, 50 ms RTT, 1 % loss WAN.
#
#   peer --lan-- nat --wan-- tf-wan (UDP relay: delay + loss) --wan-- hub
#   owrt (OpenWrt-like, no Python) --fibre 40M (eth1)-- hub  and  --5G 2M (wwan0)-- hub
#   owrt br-lan (port lan1; GSO/TSO on, forwarding from wg0, a TUN with MTU 1420: fault 5)
#   host bridge tfmgmt0 --mgmt-- hub, nat, peer, owrt (ssh, the Ansible connection)
#
# Usage: lab/up.sh            (see lab/README.md; lab/down.sh removes everything again)
#
# Idempotent. What exists is reused; what a container restart loses (veths, addresses, routes,
# qdiscs) is re-created; the emulated environment (nat, tf-wan, SSH access) is re-enforced.
# The managed hosts' lab configuration (hub/peer wg0.conf without keepalive, cubic) is written
# only when absent, so a rerun never undoes what the playbooks fixed. Fresh faults:
# lab/down.sh && lab/up.sh.
set -euo pipefail
umask 077
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[[ $# -eq 0 ]] || { sed -n '2,14p' "$0"; exit 2; }
[[ "$(id -u)" -eq 0 ]] || die "must run as root (podman, veths, nsenter, host sysctl)"
need_commands podman ip tc nsenter ssh ssh-keygen wg ping nft sysctl
mkdir -p "${STATE_DIR}" "${WG_KEY_DIR}"
SECONDS=0

declare -A PID=()       # role -> PID of the container's init (its network namespace)

# Run a command in the network namespace of a lab container (host binaries).
nsx() { local role="$1"; shift; nsenter -t "${PID[${role}]}" -n -- "$@"; }
# Run a command inside a lab container.
cx() { local role="$1"; shift; podman exec "$(container_name "${role}")" "$@"; }

# Write stdin to PATH inside a container (through /proc/PID/root) with MODE, only if the content
# differs. Exit status 0 = written, 1 = already identical. Call it in an `if`.
put_file() {
  local role="$1" path="$2" mode="$3" root="/proc/${PID[$1]}/root" tmp
  tmp="$(mktemp "${STATE_DIR}/.put.XXXXXX")"
  cat > "${tmp}"
  if [[ -f "${root}${path}" ]] && cmp -s "${tmp}" "${root}${path}"; then
    rm -f "${tmp}"; return 1
  fi
  mkdir -p "${root}$(dirname "${path}")"
  install -m "${mode}" -o root -g root "${tmp}" "${root}${path}"
  rm -f "${tmp}"
}
# True if PATH exists inside the container.
has_file() { [[ -e "/proc/${PID[$1]}/root$2" ]]; }

# --- 1. Image ------------------------------------------------------------------------------------
podman image exists "${IMAGE}" || "${LAB_DIR}/images/build.sh"
"${LAB_DIR}/images/build-openwrt.sh"   # builds only if absent or built from an older definition
# A lab whose router runs another image (another release profile, or an older build) is planted anew:
# reusing it would test the wrong release.
owrt_name="$(container_name owrt)"
if podman container exists "${owrt_name}" && [[ "$(podman inspect -f '{{.Image}}' "${owrt_name}")" \
    != "$(podman image inspect -f '{{.Id}}' "${OWRT_IMAGE}")" ]]; then
  log "${owrt_name} runs another image than ${OWRT_IMAGE} (OpenWrt ${TUNNELFIX_OPENWRT_RELEASE}): planting the lab anew"
  "${LAB_DIR}/down.sh"
  mkdir -p "${STATE_DIR}" "${WG_KEY_DIR}"   # down.sh removed lab/state with the keys
fi

# --- 2. Host: congestion controls a child netns may select ---------------------------------------
# A non-init netns can only make an *allowed* algorithm its default: bbr for the fix role,
# cubic for the lab's starting state (this host's own default is bbr, so cubic may be missing).
ensure_host_cc_allowed() {
  local available allowed wanted=() cc
  available="$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
  if [[ " ${available} " != *" bbr "* ]]; then
    modprobe tcp_bbr 2>/dev/null || true   # built in on some kernels, a module on others
    available="$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
  fi
  allowed="$(cat "${HOST_CC_ALLOWED}")"
  read -r -a wanted <<< "${allowed}"
  for cc in bbr cubic; do
    [[ " ${available} " == *" ${cc} "* ]] || die "congestion control ${cc} not available on this kernel"
    [[ " ${allowed} " == *" ${cc} "* ]] || wanted+=("${cc}")
  done
  if [[ "${wanted[*]}" != "${allowed}" ]]; then
    # Record the value before our first change only, so down.sh restores the true original.
    mkdir -p "$(dirname "${HOST_SYSCTL_ORIG}")"
    [[ -e "${HOST_SYSCTL_ORIG}" ]] || printf 'net.ipv4.tcp_allowed_congestion_control=%s\n' "${allowed}" > "${HOST_SYSCTL_ORIG}"
    echo "${wanted[*]}" > "${HOST_CC_ALLOWED}"
    log "host: tcp_allowed_congestion_control '${allowed}' -> '${wanted[*]}'"
  fi
}
ensure_host_cc_allowed

# --- 3. Keys (lab/state only; never printed) -----------------------------------------------------
NEW_WG_KEYS=false
[[ -s "${SSH_KEY}" ]] || ssh-keygen -q -t ed25519 -N '' -C tunnelfix-lab -f "${SSH_KEY}"
for role in hub peer owrt; do
  if [[ ! -s "${WG_KEY_DIR}/${role}.key" ]]; then
    wg genkey > "${WG_KEY_DIR}/${role}.key"
    NEW_WG_KEYS=true
  fi
  wg pubkey < "${WG_KEY_DIR}/${role}.key" > "${WG_KEY_DIR}/${role}.pub"
done
# A preshared key on the hub<->peer pair, so the secret checks cover PresharedKey too.
for pair in hub-peer hub-owrt; do
  if [[ ! -s "${WG_KEY_DIR}/${pair}.psk" ]]; then
    (umask 077; wg genpsk > "${WG_KEY_DIR}/${pair}.psk")
    NEW_WG_KEYS=true
  fi
done

# --- 4. Containers (privileged, systemd as PID 1, no podman networking) --------------------------
for role in "${ROLES[@]}"; do
  name="$(container_name "${role}")"
  # A container podman still calls running whose processes are gone (host or job restart killed
  # them, conmon with them) cannot be exec'd into or started; remove it so it is created again.
  if podman container exists "${name}" \
      && [[ "$(podman inspect -f '{{.State.Running}}' "${name}")" == "true" ]] \
      && ! timeout 30 podman exec "${name}" true &>/dev/null; then
    podman rm -f -t 1 "${name}" >/dev/null
    log "removed stale container ${name} (marked running, its processes gone)"
  fi
  if ! podman container exists "${name}"; then
    if [[ "${role}" == owrt ]]; then   # BusyBox PID 1 (/sbin/tf-init starts dropbear), no systemd
      podman run -d --name "${name}" --hostname "${role}" --label "${LAB_LABEL}" \
        --privileged --network none "${OWRT_IMAGE}" /sbin/tf-init >/dev/null
    else
      podman run -d --name "${name}" --hostname "${role}" --label "${LAB_LABEL}" \
        --privileged --systemd=always --network none "${IMAGE}" >/dev/null
    fi
    log "created container ${name}"
  elif [[ "$(podman inspect -f '{{.State.Running}}' "${name}")" != "true" ]]; then
    podman start "${name}" >/dev/null
    log "started container ${name}"
  fi
done
for role in "${SYSTEMD_ROLES[@]}"; do
  name="$(container_name "${role}")"
  # "degraded" is acceptable: the lab only needs sshd, wg-quick and the relay.
  state="$(timeout 120 podman exec "${name}" systemctl is-system-running --wait 2>/dev/null || true)"
  if [[ "${state}" != running && "${state}" != degraded ]]; then
    podman exec "${name}" systemctl --failed --no-pager >&2 2>&1 || true
    podman logs --tail 20 "${name}" >&2 2>&1 || true
    die "${name}: systemd state '${state:-none: no answer within 120 s}' (lab/down.sh && lab/up.sh starts afresh)"
  fi
  PID[${role}]="$(podman inspect -f '{{.State.Pid}}' "${name}")"
done
PID[owrt]="$(podman inspect -f '{{.State.Pid}}' "$(container_name owrt)")"

# --- 5. Wiring -----------------------------------------------------------------------------------
# Keep the lab IPv4-only (no link-local chatter through the NAT and the shaper).
for role in "${ROLES[@]}"; do
  nsx "${role}" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done

# A veth pair between two container namespaces. When a container restarts, its namespace and
# with it both ends of each pair disappear, so "both ends present" means "wired".
ensure_link() {
  local a="$1" if_a="$2" b="$3" if_b="$4" has_a=false has_b=false
  nsx "${a}" ip link show dev "${if_a}" &>/dev/null && has_a=true
  nsx "${b}" ip link show dev "${if_b}" &>/dev/null && has_b=true
  if "${has_a}" && "${has_b}"; then return; fi
  "${has_a}" && nsx "${a}" ip link del dev "${if_a}"
  "${has_b}" && nsx "${b}" ip link del dev "${if_b}"
  ip link add name "${if_a}" netns "${PID[${a}]}" type veth peer name "${if_b}" netns "${PID[${b}]}"
  log "wired ${a}:${if_a} <-> ${b}:${if_b}"
}
# Address (replace = idempotent) and link up inside a container.
ensure_addr() {
  nsx "$1" ip addr replace "$3" dev "$2"
  nsx "$1" ip link set dev "$2" up
}

# Management bridge on the host: a connected /24 only, never a route for lab traffic.
if ! ip link show dev "${MGMT_BRIDGE}" &>/dev/null; then
  ip link add name "${MGMT_BRIDGE}" type bridge
  log "created bridge ${MGMT_BRIDGE}"
fi
sysctl -q -w "net.ipv6.conf.${MGMT_BRIDGE}.disable_ipv6=1"
ip addr replace "${MGMT_HOST_IP}/${MGMT_PREFIX_LEN}" dev "${MGMT_BRIDGE}"
ip link set dev "${MGMT_BRIDGE}" up
for role in "${MANAGED_ROLES[@]}"; do
  host_if="tfm-${role}"
  if ! { ip link show dev "${host_if}" &>/dev/null && nsx "${role}" ip link show dev mgmt0 &>/dev/null; }; then
    ip link del dev "${host_if}" 2>/dev/null || true
    nsx "${role}" ip link del dev mgmt0 2>/dev/null || true
    ip link add name "${host_if}" type veth peer name mgmt0 netns "${PID[${role}]}"
    # The new mgmt0 has a new MAC: forget the host's cached one, or ssh waits for ARP to age.
    ip neigh flush to "${MGMT_IP[${role}]}" dev "${MGMT_BRIDGE}" 2>/dev/null || true
    log "wired host:${host_if} <-> ${role}:mgmt0"
  fi
  ip link set dev "${host_if}" master "${MGMT_BRIDGE}" up
  ensure_addr "${role}" mgmt0 "${MGMT_IP[${role}]}/${MGMT_PREFIX_LEN}"
done

ensure_link peer lan0 nat lan0
ensure_link nat wan0 wan isp0
ensure_link wan dc0 hub wan0
ensure_addr peer lan0 "${PEER_LAN_IP}/${LAN_PREFIX_LEN}"
ensure_addr nat lan0 "${NAT_LAN_IP}/${LAN_PREFIX_LEN}"
ensure_addr nat wan0 "${NAT_WAN_IP}/${WAN_PREFIX_LEN}"
ensure_addr wan isp0 "${WAN_ISP_IP}/${WAN_PREFIX_LEN}"
ensure_addr wan dc0 "${WAN_DC_IP}/${WAN_PREFIX_LEN}"
ensure_addr hub wan0 "${HUB_WAN_IP}/${WAN_PREFIX_LEN}"
nsx peer ip route replace default via "${NAT_LAN_IP}" dev lan0
nsx nat ip route replace default via "${WAN_ISP_IP}" dev wan0
nsx hub ip route replace default via "${WAN_DC_IP}" dev wan0
ensure_link owrt eth1 hub fib0
ensure_link owrt wwan0 hub lte0
ensure_addr owrt eth1 "${OWRT_FIBRE_IP}/${UPLINK_PREFIX_LEN}"
ensure_addr owrt wwan0 "${OWRT_5G_IP}/${UPLINK_PREFIX_LEN}"
ensure_addr hub fib0 "${HUB_FIBRE_IP}/${UPLINK_PREFIX_LEN}"
ensure_addr hub lte0 "${HUB_5G_IP}/${UPLINK_PREFIX_LEN}"
for ip in "${HUB_MONITOR_IPS[@]}"; do ensure_addr hub lo "${ip}/32"; done   # owrt's monitoring pinger's targets
# tf-wan only terminates the relay: it routes nothing, so every packet between nat and hub
# crosses the emulated WAN.

# --- 6. Emulated environment: enforced on every run ----------------------------------------------
# SSH access for Ansible on the managed hosts.
for role in "${MANAGED_ROLES[@]}"; do
  if put_file "${role}" /root/.ssh/authorized_keys 0600 < "${SSH_KEY}.pub"; then
    chmod 0700 "/proc/${PID[${role}]}/root/root/.ssh"
    log "${role}: installed lab SSH key"
  fi
done

# nat: home router. Forwarding, masquerade, unsolicited WAN input dropped, short UDP conntrack.
if put_file nat /etc/sysctl.d/10-tunnelfix-lab.conf 0644 <<EOF
# tunnelfix lab (lab/up.sh): emulated home router with a short UDP NAT mapping lifetime.
net.ipv4.ip_forward = 1
net.netfilter.nf_conntrack_udp_timeout = ${LAB_NAT_UDP_TIMEOUT_S}
net.netfilter.nf_conntrack_udp_timeout_stream = ${LAB_NAT_UDP_TIMEOUT_S}
EOF
then log "nat: wrote /etc/sysctl.d/10-tunnelfix-lab.conf"; fi
cx nat sysctl -q -p /etc/sysctl.d/10-tunnelfix-lab.conf
if put_file nat /etc/nftables.conf 0755 <<EOF
#!/usr/sbin/nft -f
# tunnelfix lab (lab/up.sh): masquerade the peer LAN; from the WAN only replies get in, so a
# packet arriving after its UDP conntrack entry expired is dropped (not answered).
table ip tunnelfix_lab_nat
delete table ip tunnelfix_lab_nat
table ip tunnelfix_lab_nat {
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "wan0" ip saddr ${LAN_CIDR} masquerade
  }
  chain input {
    type filter hook input priority filter; policy accept;
    iifname "wan0" ct state established,related accept
    iifname "wan0" icmp type echo-request accept
    iifname "wan0" counter drop
  }
  chain forward {
    type filter hook forward priority filter; policy accept;
    iifname "wan0" ct state established,related accept
    iifname "wan0" counter drop
  }
}
EOF
then
  cx nat nft -f /etc/nftables.conf
  log "nat: loaded /etc/nftables.conf"
elif ! cx nat nft list table ip tunnelfix_lab_nat &>/dev/null; then
  cx nat nft -f /etc/nftables.conf
fi
cx nat systemctl -q enable nftables.service
# tbf as the root qdisc of DEV in ROLE's namespace at RATE bit/s, replaced only when it differs.
ensure_tbf() {
  local role="$1" dev="$2" rate="$3" burst="$4"
  if ! nsx "${role}" tc qdisc show dev "${dev}" root | grep -q "^qdisc tbf .* rate $((rate / 1000))Kbit \|^qdisc tbf .* rate $((rate / 1000000))Mbit "; then
    nsx "${role}" tc qdisc replace dev "${dev}" root tbf rate "${rate}bit" burst "${burst}" latency "${LAB_TBF_LATENCY}"
    log "${role}: ${dev} root tbf rate ${rate}bit burst ${burst}"
  fi
}
# owrt's uplinks, shaped in both directions: fibre (eth1 / hub fib0) and the slow 5G (wwan0 / hub lte0).
ensure_tbf owrt eth1 "${LAB_FIBRE_BPS}" "${LAB_TBF_BURST}"
ensure_tbf hub fib0 "${LAB_FIBRE_BPS}" "${LAB_TBF_BURST}"
ensure_tbf owrt wwan0 "${LAB_5G_BPS}" "${LAB_5G_TBF_BURST}"
ensure_tbf hub lte0 "${LAB_5G_BPS}" "${LAB_5G_TBF_BURST}"

# The known bottleneck: tbf at LAB_BOTTLENECK_BPS on nat's egress toward the hub (wan0, carries
# peer -> hub) and toward the peer (lan0, carries hub -> peer).
for dev in wan0 lan0; do
  tbf=(tbf rate "${LAB_BOTTLENECK_BPS}bit" burst "${LAB_TBF_BURST}" latency "${LAB_TBF_LATENCY}")
  if ! nsx nat tc qdisc show dev "${dev}" root | grep -q "^qdisc tbf .* rate $((LAB_BOTTLENECK_BPS / 1000000))Mbit"; then
    nsx nat tc qdisc replace dev "${dev}" root "${tbf[@]}"
    log "nat: ${dev} root ${tbf[*]}"
  fi
done

# hub: tunnel addresses only through the tunnel. owrt's uplinks end at the hub, so without this a
# packet to 10.44.0.1 sent outside a dead tunnel would still be answered (and measured).
if put_file hub /etc/nftables.conf 0755 <<EOF
#!/usr/sbin/nft -f
# tunnelfix lab (lab/up.sh): the hub answers its tunnel address only through wg0.
table ip tunnelfix_lab_hub
delete table ip tunnelfix_lab_hub
table ip tunnelfix_lab_hub {
  chain input {
    type filter hook input priority filter; policy accept;
    ip daddr ${TUNNEL_CIDR} iifname != { "wg0", "lo" } counter drop
  }
}
EOF
then
  cx hub nft -f /etc/nftables.conf
  log "hub: loaded /etc/nftables.conf"
elif ! cx hub nft list table ip tunnelfix_lab_hub &>/dev/null; then
  cx hub nft -f /etc/nftables.conf
fi
cx hub systemctl -q enable nftables.service

# tf-wan: the relay (delay + loss) as a systemd unit, listening where the peer's Endpoint points.
relay_changed=false
if put_file wan /usr/local/lib/tunnelfix/wan_relay.py 0755 < "${LAB_DIR}/wan_relay.py"; then relay_changed=true; fi
if put_file wan /etc/systemd/system/tunnelfix-wan-relay.service 0644 <<EOF
# tunnelfix lab (lab/up.sh): emulated WAN between nat and hub, see lab/wan_relay.py.
[Unit]
Description=tunnelfix lab WAN emulator (UDP relay: ${LAB_ONE_WAY_DELAY_MS} ms each way, ${LAB_LOSS_PERCENT} % loss of datagrams >= ${LAB_LOSS_MIN_BYTES} bytes)

[Service]
ExecStart=/usr/bin/python3 /usr/local/lib/tunnelfix/wan_relay.py --listen ${WAN_ISP_IP}:${WG_PORT} --target ${HUB_WAN_IP}:${WG_PORT} --upstream-bind ${WAN_DC_IP} --delay-ms ${LAB_ONE_WAY_DELAY_MS} --loss-percent ${LAB_LOSS_PERCENT} --loss-min-bytes ${LAB_LOSS_MIN_BYTES} --seed ${LAB_LOSS_SEED}
Restart=on-failure
RestartSec=1
EOF
then relay_changed=true; fi
if "${relay_changed}"; then
  cx wan systemctl daemon-reload
  cx wan systemctl restart tunnelfix-wan-relay.service
  log "wan: (re)started tunnelfix-wan-relay.service"
else
  cx wan systemctl start tunnelfix-wan-relay.service
fi

# --- 7. Managed hosts: the faults, written only when absent --------------------------------------
hub_pub="$(cat "${WG_KEY_DIR}/hub.pub")"
peer_pub="$(cat "${WG_KEY_DIR}/peer.pub")"
# wg0.conf for ROLE on stdin; written if missing or if the keys were just (re)generated.
install_wg_conf() {
  local role="$1"
  if has_file "${role}" /etc/wireguard/wg0.conf && ! "${NEW_WG_KEYS}"; then
    cat > /dev/null
    cx "${role}" systemctl -q enable --now wg-quick@wg0.service
    return
  fi
  put_file "${role}" /etc/wireguard/wg0.conf 0600 || true
  cx "${role}" systemctl -q enable wg-quick@wg0.service
  cx "${role}" systemctl restart wg-quick@wg0.service
  log "${role}: wrote /etc/wireguard/wg0.conf, restarted wg-quick@wg0"
}
install_wg_conf hub <<EOF
# tunnelfix lab (lab/up.sh): public hub.
[Interface]
Address = ${HUB_TUNNEL_IP}/${TUNNEL_PREFIX_LEN}
ListenPort = ${WG_PORT}
PrivateKey = $(cat "${WG_KEY_DIR}/hub.key")

[Peer]
# peer (behind nat; its endpoint is learned from its packets)
PublicKey = ${peer_pub}
PresharedKey = $(cat "${WG_KEY_DIR}/hub-peer.psk")
AllowedIPs = ${PEER_TUNNEL_IP}/32

[Peer]
# owrt (OpenWrt-like router; fibre or 5G uplink, its endpoint is learned from its packets)
PublicKey = $(cat "${WG_KEY_DIR}/owrt.pub")
PresharedKey = $(cat "${WG_KEY_DIR}/hub-owrt.psk")
AllowedIPs = ${OWRT_TUNNEL_IP}/32
EOF
install_wg_conf peer <<EOF
# tunnelfix lab (lab/up.sh): peer behind a NAT, deliberately without PersistentKeepalive.
[Interface]
Address = ${PEER_TUNNEL_IP}/${TUNNEL_PREFIX_LEN}
PrivateKey = $(cat "${WG_KEY_DIR}/peer.key")

[Peer]
# hub, reached through the emulated WAN (tf-wan relay)
PublicKey = ${hub_pub}
PresharedKey = $(cat "${WG_KEY_DIR}/hub-peer.psk")
Endpoint = ${WAN_ISP_IP}:${WG_PORT}
AllowedIPs = ${TUNNEL_CIDR}
EOF
# Debian's default congestion control (the host's default, bbr, would otherwise leak into every
# new namespace).
for role in hub peer; do
  if ! has_file "${role}" /etc/sysctl.d/10-tunnelfix-lab.conf; then
    put_file "${role}" /etc/sysctl.d/10-tunnelfix-lab.conf 0644 <<'EOF' || true
# tunnelfix lab (lab/up.sh): starting state, Debian's default congestion control.
net.ipv4.tcp_congestion_control = cubic
EOF
    cx "${role}" sysctl -q -p /etc/sysctl.d/10-tunnelfix-lab.conf
    log "${role}: tcp_congestion_control=cubic"
  fi
done

# --- 7b. owrt: the OpenWrt-like router (faults 1 and 2) ------------------------------------------
# Emulated environment, enforced: the hook that gives ifup (netifd's WireGuard handler) real effect
# (lab/owrt/), and dropbear's view of root's home. banIP is the image's own model of the release
# (lab/images/openwrt/rootfs/etc/init.d/banip): no hook.
ox() { podman exec -i "$(container_name owrt)" "$@"; }
if put_file owrt /etc/tunnelfix/hooks/ifup 0755 < "${LAB_DIR}/owrt/ifup"; then log "owrt: installed the ifup hook"; fi
ox rm -f /etc/tunnelfix/hooks/banip   # the banIP hook of older labs (the image models banIP now)
chmod 0700 "/proc/${PID[owrt]}/root/root"   # dropbear refuses keys under a group/world-writable home

# The router's configuration (UCI), written once: a split tunnel wg0 to the hub without
# nohostroute (fault 1), mwan3 tracking both uplinks by ping every second, banIP on both WAN
# devices with ban_icmplimit unset, i.e. the release's default: 10/s on 23.05, 25/s from 24.10 (fault 2).
if ! has_file owrt /etc/tunnelfix/lab-configured || "${NEW_WG_KEYS}"; then
  put_file owrt /etc/config/network 0600 <<EOF || true

config interface 'loopback'
	option device 'lo'
	option proto 'static'
	option ipaddr '127.0.0.1'
	option netmask '255.0.0.0'

config interface 'wan'
	option device 'eth1'
	option proto 'static'
	option ipaddr '${OWRT_FIBRE_IP}'
	option netmask '255.255.255.0'
	option gateway '${HUB_FIBRE_IP}'
	option metric '10'

config interface 'wanb'
	option device 'wwan0'
	option proto 'static'
	option ipaddr '${OWRT_5G_IP}'
	option netmask '255.255.255.0'
	option gateway '${HUB_5G_IP}'
	option metric '20'

config interface 'wg0'
	option proto 'wireguard'
	option private_key '$(cat "${WG_KEY_DIR}/owrt.key")'
	option privatekey '$(cat "${WG_KEY_DIR}/owrt.key")'
	option listen_port '${WG_PORT}'
	list addresses '${OWRT_TUNNEL_IP}/${TUNNEL_PREFIX_LEN}'

config wireguard_wg0 'hub'
	option description 'hub psk $(cat "${WG_KEY_DIR}/hub-owrt.psk")'
	option public_key '${hub_pub}'
	option preshared_key '$(cat "${WG_KEY_DIR}/hub-owrt.psk")'
	option endpoint_host '${HUB_WAN_IP}'
	option endpoint_port '${WG_PORT}'
	option persistent_keepalive '25'
	list allowed_ips '${TUNNEL_CIDR}'
	option route_allowed_ips '1'
EOF
  put_file owrt /etc/config/mwan3 0644 <<EOF || true

config globals 'globals'
	option mmx_mask '0x3F00'

config interface 'wan'
	option enabled '1'
	option family 'ipv4'
	option track_method 'ping'
	list track_ip '${HUB_FIBRE_IP}'
	option count '1'
	option timeout '1'
	option interval '1'
	option down '3'
	option up '3'

config interface 'wanb'
	option enabled '1'
	option family 'ipv4'
	option track_method 'ping'
	list track_ip '${HUB_5G_IP}'
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
EOF
  put_file owrt /etc/config/banip 0644 <<EOF || true

config banip 'global'
	option ban_enabled '1'
	option ban_autodetect '0'
	list ban_dev 'eth1'
	list ban_dev 'wwan0'
EOF
  ox rm -rf /tmp/.uci/network /tmp/.uci/mwan3 /tmp/.uci/banip
  ox ip link del dev wg0 2>/dev/null || true   # "reboot" below with the new configuration
  ox mkdir -p /etc/tunnelfix
  ox touch /etc/tunnelfix/lab-configured
  log "owrt: wrote /etc/config/network, mwan3, banip"
fi

# "Boot", when wg0 is missing (new or restarted container): the 5G uplink comes up first, so
# netifd (the ifup hook) pins the endpoint host route to it; then the fibre uplink comes up with
# the better metric. Congestion control: OpenWrt's default cubic, then /etc/sysctl.d as at boot.
if ! nsx owrt ip link show dev wg0 &>/dev/null; then
  nsx owrt ip route del default dev eth1 2>/dev/null || true
  nsx owrt ip route replace default via "${HUB_5G_IP}" dev wwan0 proto static metric 20
  nsx owrt sysctl -q -w net.ipv4.tcp_congestion_control=cubic
  # shellcheck disable=SC2016  # the loop runs in owrt's shell
  ox /bin/sh -c 'for f in /etc/sysctl.d/*.conf; do [ -e "$f" ] && sysctl -q -p "$f"; done; true'
  ox /sbin/ifup wg0
  log "owrt: wg0 up ($(nsx owrt ip -4 route show "${HUB_WAN_IP}/32" | head -n 1 || true))"
fi
nsx owrt ip route replace default via "${HUB_FIBRE_IP}" dev eth1 proto static metric 10
nsx owrt ip route replace default via "${HUB_5G_IP}" dev wwan0 proto static metric 20
# Fault 5 (as configuration): a LAN bridge br-lan (MTU 1500) with one veth port lan1, GSO/TSO on
# as the kernel sets them, and forwarding on, fed by wg0 (wireguard-go's TUN, MTU 1420). veth
# segments in software, so nothing corrupts the super-packets here: the lab shows the finding and
# the fix (offloads off, persisted), not the throughput collapse of case 12's hardware TSO.
if ! nsx owrt ip link show dev br-lan &>/dev/null; then
  nsx owrt ip link add name br-lan type bridge
  nsx owrt ip link add name lan1 type veth peer name lan1-client
  nsx owrt ip link set dev lan1 master br-lan up
  nsx owrt ip link set dev lan1-client up
  nsx owrt ip link set dev br-lan up
  nsx owrt ip addr add "${OWRT_LAN_IP}/${LAN_PREFIX_LEN}" dev br-lan
  log "owrt: br-lan with port lan1 (offloads as the kernel set them)"
fi
nsx owrt sysctl -q -w net.ipv4.ip_forward=1
# banIP's init script returns at once and builds its table in the background (as under procd).
if ! nsx owrt nft list table inet banIP &>/dev/null; then
  ox /etc/init.d/banip start || true   # exit 1: its lock is held by a run in progress
  log "owrt: banIP started (ban_icmplimit $(ox uci -q get banip.global.ban_icmplimit || echo "unset: the release's default"))"
fi

# Fault 2's field situation, enforced: mwan3's tracking (the image's /usr/sbin/mwan3track, one per enabled
# interface tracking by ping, logging its failed checks for logread) and beside it a monitoring pinger
# (lab/owrt/monitor-ping, 6 targets x 10 pings at 0.5 s). Their replies share banIP's bucket, so its
# flood counter grows and checks fail with no help from diagnose, whose probe stays inside the limit.
# Each runs in the background on owrt, started when not running, restarted when its script changed.
# owrt_alive PIDFILE PROGRAM: the process PIDFILE names runs PROGRAM (a PID left by a restarted container may be another's).
# shellcheck disable=SC2016  # the single-quoted commands run in owrt's shell
owrt_alive() { ox sh -c '[ -s "$1" ] && grep -qs "$2" "/proc/$(cat "$1")/cmdline"' sh "$1" "$2"; }
# owrt_daemon RESTART PIDFILE PROGRAM ARGS...: runs `PROGRAM PIDFILE ARGS...` (which writes PIDFILE).
# shellcheck disable=SC2016  # the single-quoted commands run in owrt's shell
owrt_daemon() {
  local restart="$1" pidfile="$2"; shift 2
  if "${restart}" && owrt_alive "${pidfile}" "$1"; then
    ox sh -c 'kill "$(cat "$1")"; rm -f "$1"' sh "${pidfile}"
  fi
  if ! owrt_alive "${pidfile}" "$1"; then
    ox sh -c 'p=$1; prog=$2; shift 2; setsid "$prog" "$p" "$@" </dev/null >/dev/null 2>&1 &' sh "${pidfile}" "$@"
    log "owrt: started ${1##*/} ${*:2}"
  fi
}
pinger_changed=false
if put_file owrt /etc/tunnelfix/lab/monitor-ping 0755 < "${LAB_DIR}/owrt/monitor-ping"; then pinger_changed=true; fi
if printf '%s\n' "${HUB_FIBRE_IP}" "${HUB_5G_IP}" "${HUB_WAN_IP}" "${HUB_MONITOR_IPS[@]}" \
    | put_file owrt /etc/tunnelfix/lab/monitor-ping.targets 0644; then pinger_changed=true; fi
align_every="${LAB_ALIGN_EVERY}"
# shellcheck disable=SC2016  # the loop runs in owrt's shell
for iface in $(ox sh -c 'for s in $(uci -q show mwan3 | sed -n "s/^mwan3\.\([^.=]*\)=interface\$/\1/p"); do
    [ "$(uci -q get "mwan3.$s.enabled")" = 1 ] || continue
    case "$(uci -q get "mwan3.$s.track_method" || echo ping)" in ping) echo "$s" ;; esac
  done'); do
  # The image's /usr/sbin/mwan3track, started as mwan3's init script does (`mwan3track IFACE`); the first
  # tracked interface times every LAB_ALIGN_EVERY-th check by the pinger's tick (TUNNELFIX_ALIGN_EVERY).
  if ! owrt_alive "/tmp/run/tunnelfix-mwan3track-${iface}.pid" /usr/sbin/mwan3track; then
    ox sh -c 'TUNNELFIX_ALIGN_EVERY=$3 setsid /usr/sbin/mwan3track "$2" </dev/null >/dev/null 2>&1 & echo $! > "$1"' \
      sh "/tmp/run/tunnelfix-mwan3track-${iface}.pid" "${iface}" "${align_every}"
    log "owrt: started mwan3track ${iface}"
  fi
  align_every=0
done
owrt_daemon "${pinger_changed}" /tmp/run/tunnelfix-monitor-ping.pid /etc/tunnelfix/lab/monitor-ping \
  /etc/tunnelfix/lab/monitor-ping.targets

# --- 8. Verify -----------------------------------------------------------------------------------
fail=0
REDO="lab/down.sh && lab/up.sh re-creates the lab"
check "peer -> nat (lan)" "the peer-nat veth (lan0) or its addresses are missing: ${REDO}" \
  nsx peer ping -c 1 -W 2 "${NAT_LAN_IP}"
check "nat -> wan (isp)" "the nat-wan veth (wan0/isp0) or its addresses are missing: ${REDO}" \
  nsx nat ping -c 1 -W 2 "${WAN_ISP_IP}"
check "wan -> hub (dc)" "the wan-hub veth (dc0/wan0) or its addresses are missing: ${REDO}" \
  nsx wan ping -c 1 -W 2 "${HUB_WAN_IP}"
for role in "${MANAGED_ROLES[@]}"; do
  check "host -> ${role} (mgmt)" \
    "bridge ${MGMT_BRIDGE} and veth tfm-${role} carry the management network (ip -br addr show ${MGMT_BRIDGE}); a host firewall dropping ICMP or SSH on ${MGMT_BRIDGE} fails this too" \
    ping -c 1 -W 2 "${MGMT_IP[${role}]}"
  check "ssh root@${MGMT_IP[${role}]} (${role})" \
    "the container's SSH server (podman logs $(container_name "${role}")); ${REDO}" \
    ssh -i "${SSH_KEY}" -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "root@${MGMT_IP[${role}]}" true
done
check "nat conntrack UDP timeout ${LAB_NAT_UDP_TIMEOUT_S}s" \
  "the nat container's conntrack sysctl (nf_conntrack loaded on the host? lsmod | grep nf_conntrack)" \
  test "$(nsx nat sysctl -n net.netfilter.nf_conntrack_udp_timeout_stream)" = "${LAB_NAT_UDP_TIMEOUT_S}"
check "relay active" "podman exec $(container_name wan) journalctl -u tunnelfix-wan-relay --no-pager" \
  cx wan systemctl -q is-active tunnelfix-wan-relay.service
check "hub wg-quick@wg0" "podman exec $(container_name hub) journalctl -u wg-quick@wg0 --no-pager (wireguard-go in the image)" \
  cx hub systemctl -q is-active wg-quick@wg0.service
check "peer wg-quick@wg0" "podman exec $(container_name peer) journalctl -u wg-quick@wg0 --no-pager (wireguard-go in the image)" \
  cx peer systemctl -q is-active wg-quick@wg0.service
# Peer-initiated traffic opens the NAT mapping; with 1 % loss one reply out of five is enough.
check "tunnel peer -> hub" "no WireGuard handshake? podman exec $(container_name peer) wg show; the relay on tf-wan; ${REDO}" \
  nsx peer ping -c 5 -i 0.3 -W 2 "${HUB_TUNNEL_IP}"
check "tunnel owrt -> hub" "no WireGuard handshake? podman exec $(container_name owrt) wg show; ${REDO}" \
  nsx owrt ping -c 3 -i 0.3 -W 2 "${HUB_TUNNEL_IP}"
# shellcheck disable=SC2016  # expanded by owrt's shell
check "owrt banIP ICMP limiter loaded" "banIP did not build table inet banIP: podman exec $(container_name owrt) logread -e banIP" \
  ox sh -c 'n=0; until nft -t list chain inet banIP pre-routing 2>/dev/null | grep -q "limit rate over"; do
    n=$((n + 1)); [ "$n" -lt 20 ] || exit 1; sleep 1; done'
# mwan3's tracking of both uplinks and the monitoring pinger (fault 2's field situation) are running.
for loop in mwan3track-wan mwan3track-wanb monitor-ping; do
  # shellcheck disable=SC2016  # expanded by owrt's shell
  check "owrt ${loop} running" \
    "owrt's lab loop ${loop%-wan*} is not running: podman exec $(container_name owrt) logread -e mwan3track; ${REDO}" \
    ox sh -c 'n=0; until [ -s "$1" ] && grep -qs "$2" "/proc/$(cat "$1")/cmdline"; do
                n=$((n + 1)); [ "$n" -le 5 ] || exit 1; sleep 1; done' sh "/tmp/run/tunnelfix-${loop}.pid" "${loop%-wan*}"
done
[[ "${fail}" -eq 0 ]] || die "lab verification failed (see FAIL lines above)"

# --- 9. Inventory --------------------------------------------------------------------------------
# Keepalive the fix should use here: below the NAT's UDP timeout with a 3 s margin, at most 25 s.
LAB_KEEPALIVE_S=$(( LAB_NAT_UDP_TIMEOUT_S - 3 < 25 ? LAB_NAT_UDP_TIMEOUT_S - 3 : 25 ))
(( LAB_KEEPALIVE_S >= 1 )) || LAB_KEEPALIVE_S=1
inventory_tmp="$(mktemp "${STATE_DIR}/.inventory.XXXXXX")"
cat > "${inventory_tmp}" <<EOF
# Written by lab/up.sh; removed by lab/down.sh.
all:
  vars:
    ansible_user: root
    ansible_ssh_private_key_file: ${SSH_KEY}
    ansible_ssh_common_args: "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
    ansible_python_interpreter: /usr/bin/python3
  children:
    tunnelfix_wireguard_hubs:
      hosts:
        hub: {ansible_host: ${MGMT_IP[hub]}, tunnelfix_tunnel_address: ${HUB_TUNNEL_IP}}
    tunnelfix_wireguard_peers:
      hosts:
        peer: {ansible_host: ${MGMT_IP[peer]}, tunnelfix_tunnel_address: ${PEER_TUNNEL_IP}, tunnelfix_tunnel_hub: hub}
        owrt:
          ansible_host: ${MGMT_IP[owrt]}
          tunnelfix_tunnel_address: ${OWRT_TUNNEL_IP}
          tunnelfix_tunnel_hub: hub
          # No NAT in front of owrt's uplinks: its UCI peer already has WireGuard's usual 25 s.
          wireguard_keepalive_persistent_keepalive_s: 25
          # The report's reference, and verify.yml's threshold (80 % of it): the fibre uplink.
          tunnelfix_path_bits_per_second: ${LAB_FIBRE_BPS}
          # Fault 2's passive window: long enough for the lab's monitoring pinger to fail some mwan3 checks.
          health_check_measure_window_s: ${LAB_HEALTH_WINDOW_S}
          tunnel_measure_min_bits_per_second: $((LAB_FIBRE_BPS * 8 / 10))
      vars:
        # The lab NAT forgets UDP mappings after ${LAB_NAT_UDP_TIMEOUT_S} s: the keepalive must be shorter (docs/inventory.md).
        wireguard_keepalive_persistent_keepalive_s: ${LAB_KEEPALIVE_S}
        # Silence before the hub pings: WireGuard answers received data with one keepalive after 10 s,
        # which refreshes the NAT mapping once, so the idle period must exceed 10 s + the NAT timeout.
        tunnel_measure_idle_s: $((LAB_NAT_UDP_TIMEOUT_S + 17))
        # verify.yml passes when a single TCP flow reaches 80 % of the bottleneck.
        tunnel_measure_min_bits_per_second: $((LAB_BOTTLENECK_BPS * 8 / 10))
    tunnelfix_routers:
      hosts:
        nat: {ansible_host: ${MGMT_IP[nat]}}
    tunnelfix_openwrt:   # OpenWrt routers, reached over SSH (dropbear); no Python on them
      hosts:
        owrt: {}
      vars:
        ansible_python_interpreter: /nonexistent/python   # proves nothing here needs Python
        # The mwan3 uplink that should carry the WireGuard endpoints.
        openwrt_mwan3_wg_preferred_uplink: wan
    tunnelfix_lab:   # metadata the demo prints; its children give every lab host these vars
      children:
        tunnelfix_wireguard_hubs: {}
        tunnelfix_wireguard_peers: {}
        tunnelfix_routers: {}
        tunnelfix_openwrt: {}
      vars:
        tunnelfix_lab_bottleneck_bits_per_second: ${LAB_BOTTLENECK_BPS}
        tunnelfix_lab_nat_udp_timeout_s: ${LAB_NAT_UDP_TIMEOUT_S}
        tunnelfix_lab_rtt_ms: $((2 * LAB_ONE_WAY_DELAY_MS))
        tunnelfix_lab_loss_percent: ${LAB_LOSS_PERCENT}
        tunnelfix_lab_fibre_bits_per_second: ${LAB_FIBRE_BPS}
        tunnelfix_lab_5g_bits_per_second: ${LAB_5G_BPS}
EOF
chmod 0644 "${inventory_tmp}"
mv -f "${inventory_tmp}" "${INVENTORY}"

log "lab ready in ${SECONDS}s"
echo "${INVENTORY}"
