# shellcheck shell=bash disable=SC2034  # the variables are used by the scripts sourcing this
# Shared settings and helpers for lab/up.sh and lab/down.sh (sourced, not executed).
# Every name and address of the lab is defined here, once.

LAB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CONTAINERS_CONF="${LAB_DIR}/containers.conf"
STATE_DIR="${LAB_DIR}/state"

IMAGE="localhost/tunnelfix/debian12:latest"
LAB_LABEL="tunnelfix.lab=true"             # on every lab container
IMAGE_LABEL="tunnelfix.image=debian12"     # on every build of IMAGE (finds replaced, untagged copies)
# owrt's image: BusyBox, no Python, emulated uci; the release profile from TUNNELFIX_OPENWRT_RELEASE
# shellcheck source=lab/images/openwrt-release.sh
. "${LAB_DIR}/images/openwrt-release.sh"
OWRT_IMAGE="$(openwrt_image)"
ROLES=(hub nat peer wan owrt)   # container tf-<role>, hostname <role>
SYSTEMD_ROLES=(hub nat peer wan)        # Debian with systemd as PID 1 (owrt runs /sbin/tf-init)
MANAGED_ROLES=(hub nat peer owrt)       # reachable over the management bridge, listed in the inventory

# Management network: host bridge, one veth (host side tfm-<role>, container side mgmt0) each.
MGMT_BRIDGE="tfmgmt0"
MGMT_PREFIX_LEN=24
MGMT_HOST_IP="172.31.254.1"
declare -A MGMT_IP=([hub]=172.31.254.11 [nat]=172.31.254.12 [peer]=172.31.254.13 [owrt]=172.31.254.14)

# Lab links (container <-> container veth pairs).
PEER_LAN_IP="192.168.50.2"      # peer lan0
NAT_LAN_IP="192.168.50.1"       # nat lan0 (the peer's default gateway)
LAN_PREFIX_LEN=24
LAN_CIDR="192.168.50.0/24"
NAT_WAN_IP="203.0.113.2"        # nat wan0, masquerade source of the peer LAN
WAN_ISP_IP="203.0.113.1"        # tf-wan isp0: nat's gateway and the relay address (peer Endpoint)
WAN_DC_IP="198.51.100.254"      # tf-wan dc0: hub's gateway, source of the relay's upstream sockets
HUB_WAN_IP="198.51.100.1"       # hub wan0, WireGuard ListenPort here
WAN_PREFIX_LEN=24

# owrt: an OpenWrt-like router (mwan3 + banIP, faults 1 and 2) with two uplinks that end at the hub:
# fibre (owrt eth1 <-> hub fib0, preferred, metric 10) and 5G (owrt wwan0 <-> hub lte0, backup,
# metric 20). Its WireGuard peer is the hub's wg0 at HUB_WAN_IP, reached through either uplink.
OWRT_FIBRE_IP="100.64.10.2"     # owrt eth1 (mwan3/UCI interface wan)
HUB_FIBRE_IP="100.64.10.1"      # hub fib0: owrt's fibre gateway and its mwan3 track_ip
OWRT_5G_IP="100.64.20.2"        # owrt wwan0 (mwan3/UCI interface wanb)
HUB_5G_IP="100.64.20.1"         # hub lte0: owrt's 5G gateway and its mwan3 track_ip
UPLINK_PREFIX_LEN=24
OWRT_LAN_IP="192.168.1.1"        # owrt br-lan (fault 5: a LAN bridge fed by the small-MTU tunnel)
# Fault 2's field situation: a monitoring pinger on owrt (like Telegraf's ping input, 6 targets x 10
# pings at 0.5 s) beside mwan3's tracking. Its targets: owrt's two gateways, the hub's WAN address and
# these, on the hub's loopback (stand-ins for the internet hosts a monitor watches; reached via eth1).
HUB_MONITOR_IPS=(100.64.99.1 100.64.99.2 100.64.99.3)
# The lab's mwan3track stand-in for the first tracked interface (wan) times every LAB_ALIGN_EVERY-th
# check (1 s apart) by that pinger's tick, so it fails on schedule while banIP's limit is 25/s: a
# passive window of 60 s holds ~15 failed checks, where at random timing (a few % of checks, the
# phases drifting together) one CI run saw none. 0 turns the timing off (field-like, random).
LAB_ALIGN_EVERY="${TF_LAB_ALIGN_EVERY:-4}"
# health_check_measure's passive window on owrt, s.
LAB_HEALTH_WINDOW_S="${TF_LAB_HEALTH_WINDOW_S:-60}"

# WireGuard tunnel.
WG_PORT=51820
HUB_TUNNEL_IP="10.44.0.1"
PEER_TUNNEL_IP="10.44.0.2"
OWRT_TUNNEL_IP="10.44.0.3"
TUNNEL_PREFIX_LEN=24
TUNNEL_CIDR="10.44.0.0/24"

# Emulated WAN (override from the environment to experiment; the inventory reports the values).
LAB_BOTTLENECK_BPS="${TF_LAB_BOTTLENECK_BPS:-40000000}"  # tbf rate on nat, both directions, bit/s
LAB_ONE_WAY_DELAY_MS="${TF_LAB_ONE_WAY_DELAY_MS:-25}"    # relay delay per direction, ms
LAB_LOSS_PERCENT="${TF_LAB_LOSS_PERCENT:-1}"             # relay random loss per direction, %
LAB_LOSS_MIN_BYTES="${TF_LAB_LOSS_MIN_BYTES:-1000}"     # relay loss only hits datagrams this big
LAB_LOSS_SEED="${TF_LAB_LOSS_SEED:-20250520}"            # relay loss generator seed
LAB_NAT_UDP_TIMEOUT_S="${TF_LAB_NAT_UDP_TIMEOUT_S:-8}"   # nat conntrack UDP timeouts, s
LAB_TBF_BURST="${TF_LAB_TBF_BURST:-32kb}"                # tbf bucket size
LAB_TBF_LATENCY="${TF_LAB_TBF_LATENCY:-50ms}"            # tbf queue limit, as time at the rate
LAB_FIBRE_BPS="${TF_LAB_FIBRE_BPS:-40000000}"            # owrt fibre uplink, tbf both directions, bit/s
LAB_5G_BPS="${TF_LAB_5G_BPS:-2000000}"                   # owrt 5G backup uplink, tbf both directions, bit/s
LAB_5G_TBF_BURST="${TF_LAB_5G_TBF_BURST:-8kb}"           # tbf bucket of the slow uplink

# Files under lab/state/ (gitignored).
SSH_KEY="${STATE_DIR}/id_ed25519"
WG_KEY_DIR="${STATE_DIR}/wg"
INVENTORY="${STATE_DIR}/inventory.yml"
# Machine-wide, like the lab itself (container names are fixed): any checkout's down.sh restores it.
HOST_SYSCTL_ORIG="/var/lib/tunnelfix-lab/host-sysctl.orig"
HOST_CC_ALLOWED="/proc/sys/net/ipv4/tcp_allowed_congestion_control"
ROOTFS_TARBALL="${STATE_DIR}/debian12-rootfs.tar"

log() { printf '[lab] %s\n' "$*" >&2; }
die() { printf '[lab] ERROR: %s\n' "$*" >&2; exit 1; }

# The Debian package that provides host command $1, from scripts/host-commands.txt (the list
# scripts/check_host_packages.py keeps in step with the scripts); "?" when it is not listed.
package_of() {
  awk -v cmd="$1" '$1 == cmd { print $2; found = 1; exit } END { if (!found) print "?" }' \
    "${LAB_DIR}/../scripts/host-commands.txt"
}
# What to do about a missing host command: one sentence naming its package.
install_hint() {
  local package; package="$(package_of "$1")"
  if [[ "${package}" == "?" ]]; then
    printf '%s is not installed and not in scripts/host-commands.txt: add it with its Debian package, then run make deps' "$1"
  else
    printf '%s is not installed: it comes from Debian package %s; run make deps (scripts/bootstrap.sh installs requirements-apt.txt) or apt-get install %s' "$1" "${package}" "${package}"
  fi
}
# Die unless every named host command is installed, naming the package of the first one missing.
need_commands() {
  local cmd
  for cmd in "$@"; do command -v "${cmd}" >/dev/null || die "$(install_hint "${cmd}")"; done
}

container_name() { printf 'tf-%s' "$1"; }

# check DESCRIPTION HINT COMMAND...: run COMMAND (lab/up.sh's verification steps); on failure set
# fail=1 and print what failed, its exit status, its last output lines and what to do: HINT, or the
# package to install when the host program (past `nsx ROLE`) is not installed.
check() {
  local what="$1" hint="$2" out rc=0; shift 2
  out="$("$@" 2>&1)" || rc=$?
  if (( rc == 0 )); then log "ok   ${what}"; return; fi
  fail=1
  log "FAIL ${what}: exit ${rc} from: $*"
  [[ -z "${out}" ]] || printf '%s\n' "${out}" | tail -n 3 | sed 's/^/[lab]        /' >&2
  local cmd="$1"                         # the host program the check runs: past nsx ROLE,
  [[ "${cmd}" == nsx ]] && cmd="${3:-}"   # none for cx (that runs inside a container)
  [[ "${cmd}" == cx ]] && cmd=""
  if [[ -n "${cmd}" ]] && ! command -v "${cmd}" >/dev/null && ! declare -F "${cmd}" >/dev/null; then
    log "     what to do: $(install_hint "${cmd}")"
  else
    log "     what to do: ${hint}"
  fi
}
