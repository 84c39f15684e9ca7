#!/usr/bin/env bash
# The lab's PMTU black hole (issue 31): a forwarding hop that silently drops every IP packet larger than the
# path MTU and sends no ICMP ("fragmentation needed"), so full-size tunnel packets vanish while pings and
# small packets pass.
#
#   lab/black_hole.sh on [--path-mtu N]   N bytes of IP packet still pass (default 1400, 576-1499)
#   lab/black_hole.sh off
#   lab/black_hole.sh status              one line per hop: on/off, N, packets dropped, aggregates seen
#
# Where (lab/README.md, "The PMTU black hole"): never on a sending host, whose hooks see packets before
# segmentation. tf-peer's path: tf-nat's forward hook, both directions (lan0 -> wan0 and wan0 -> lan0).
# tf-owrt's path: tf-hub's ingress from owrt (prerouting on fib0 and lte0, before defragmentation);
# owrt's uplinks end at the hub, so the hub is the hop. Each is an nftables table of its own,
# ip tunnelfix_lab_pmtu, with counters. A rule before the drop counts packets over the links' 1500 bytes:
# GRO or GSO aggregates, which would be judged by their total length; it stays 0 in the lab (README).
# Idempotent: `on` with the N already in force keeps the table and its counters; `off` removes the tables.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

TABLE="tunnelfix_lab_pmtu"
DEFAULT_PATH_MTU=1400
LINK_MTU=1500
# hop role -> "hook ingress-device..." (the hop's ports the lab traffic enters through)
declare -A HOP_HOOK=([nat]=forward [hub]=prerouting)
declare -A HOP_DEVS=([nat]="lan0 wan0" [hub]="fib0 lte0")
# prerouting at -450: before conntrack's defragmentation (-400), so the hop judges packets as they arrive
declare -A HOP_PRIORITY=([nat]=-10 [hub]=-450)

usage() { sed -n '6,9p' "$0" >&2; exit 2; }

[[ "$(id -u)" -eq 0 ]] || die "must run as root (podman)"

# The table for one hop, as `nft -f` input (the delete first makes the load replace an existing one).
table_text() {
  local role="$1" mtu="$2" dev
  printf 'table ip %s\ndelete table ip %s\ntable ip %s {\n' "${TABLE}" "${TABLE}" "${TABLE}"
  printf '  comment "lab/black_hole.sh: path MTU %s, no ICMP"\n' "${mtu}"
  printf '  chain %s {\n    type filter hook %s priority %s; policy accept;\n' \
    "${HOP_HOOK[${role}]}" "${HOP_HOOK[${role}]}" "${HOP_PRIORITY[${role}]}"
  for dev in ${HOP_DEVS[${role}]}; do
    printf '    iifname "%s" meta length > %s counter comment "aggregate %s"\n' "${dev}" "${LINK_MTU}" "${dev}"
    printf '    iifname "%s" meta length > %s counter drop comment "hole %s"\n' "${dev}" "${mtu}" "${dev}"
  done
  printf '  }\n}\n'
}

# The path MTU in force on a hop ("" when its table is absent).
current_mtu() {
  { podman exec "$(container_name "$1")" nft list table ip "${TABLE}" 2>/dev/null || true; } \
    | sed -n 's/.*comment "lab\/black_hole.sh: path MTU \([0-9]*\),.*/\1/p' | head -n 1
}

# Receive offloads that would merge packets before the hop's rule (veth: GRO off unless turned on).
check_gro() {
  local role="$1" dev state
  for dev in ${HOP_DEVS[${role}]}; do
    state="$(podman exec "$(container_name "${role}")" ethtool -k "${dev}" \
      | sed -n 's/^generic-receive-offload: \([a-z]*\).*/\1/p')"
    [[ "${state}" == off ]] || log "WARNING: ${role} ${dev}: generic-receive-offload ${state:-unknown}: merged packets are judged by their total length (see the aggregate counters)"
  done
}

hole_on() {
  local mtu="$1" role
  for role in nat hub; do
    check_gro "${role}"
    if [[ "$(current_mtu "${role}")" == "${mtu}" ]]; then
      log "${role}: black hole already on (path MTU ${mtu})"
      continue
    fi
    table_text "${role}" "${mtu}" | podman exec -i "$(container_name "${role}")" nft -f -
    log "${role}: black hole on: ${HOP_HOOK[${role}]} from ${HOP_DEVS[${role}]// /, } drops IP packets over ${mtu} bytes, no ICMP"
  done
}

hole_off() {
  local role
  for role in nat hub; do
    if [[ -n "$(current_mtu "${role}")" ]]; then
      podman exec "$(container_name "${role}")" nft delete table ip "${TABLE}"
      log "${role}: black hole off"
    else
      log "${role}: black hole already off"
    fi
  done
}

# One line per hop: "<role> on path_mtu=N dropped=P bytes=B aggregates=A [dev=P...]" or "<role> off".
hole_status() {
  local role mtu listing dev dropped merged total aggregates line
  for role in nat hub; do
    mtu="$(current_mtu "${role}")"
    if [[ -z "${mtu}" ]]; then
      echo "${role} off"
      continue
    fi
    listing="$(podman exec "$(container_name "${role}")" nft list table ip "${TABLE}")"
    total=0
    aggregates=0
    line=""
    for dev in ${HOP_DEVS[${role}]}; do
      dropped="$(sed -n "s/.*packets \([0-9]*\) bytes [0-9]* drop comment \"hole ${dev}\".*/\1/p" <<<"${listing}")"
      merged="$(sed -n "s/.*packets \([0-9]*\) bytes [0-9]* comment \"aggregate ${dev}\".*/\1/p" <<<"${listing}")"
      total=$((total + ${dropped:-0}))
      aggregates=$((aggregates + ${merged:-0}))
      line+=" ${dev}=${dropped:-0}"
    done
    echo "${role} on path_mtu=${mtu} dropped=${total}${line} aggregates=${aggregates}"
  done
}

case "${1:-}" in
  on)
    shift
    path_mtu="${DEFAULT_PATH_MTU}"
    while [[ $# -gt 0 ]]; do
      case "$1" in
        --path-mtu) [[ $# -ge 2 ]] || usage; path_mtu="$2"; shift 2 ;;
        --path-mtu=*) path_mtu="${1#*=}"; shift ;;
        *) usage ;;
      esac
    done
    if ! [[ "${path_mtu}" =~ ^[0-9]+$ ]] || (( path_mtu < 576 || path_mtu >= LINK_MTU )); then
      die "--path-mtu must be a whole number of bytes from 576 to $((LINK_MTU - 1)), got '${path_mtu}'"
    fi
    hole_on "${path_mtu}"
    ;;
  off) [[ $# -eq 1 ]] || usage; hole_off ;;
  status) [[ $# -eq 1 ]] || usage; hole_status ;;
  *) usage ;;
esac
