# shellcheck shell=bash
# Helpers shared by bench/fleet.sh and bench/slots_fleet.sh (sourced, not executed): the host
# settings a fleet of systemd containers needs, and access to a container's namespace and files.
# The sourcing script has sourced lab/common.sh (HOST_SYSCTL_ORIG, HOST_CC_ALLOWED) and defines log.

pid_of() { podman inspect -f '{{.State.Pid}}' "$1"; }
nsx() { local pid="$1"; shift; nsenter -t "${pid}" -n -- "$@"; }
# put ROOT PATH MODE < content: write a file into a container through /proc/PID/root.
put() { mkdir -p "$1$(dirname "$2")"; cat > "$1$2"; chmod "$3" "$1$2"; chown 0:0 "$1$2"; }

# Host: bbr (the fix) and cubic (the fault) must be allowed for a child namespace to select them.
# Same record as lab/up.sh, so lab/down.sh (from any checkout) restores the original.
ensure_host_cc_allowed() {
  local allowed wanted cc
  allowed="$(cat "${HOST_CC_ALLOWED}")"; wanted="${allowed}"
  for cc in bbr cubic; do [[ " ${wanted} " == *" ${cc} "* ]] || wanted="${wanted} ${cc}"; done
  if [[ "${wanted}" != "${allowed}" ]]; then
    mkdir -p "$(dirname "${HOST_SYSCTL_ORIG}")"
    [[ -e "${HOST_SYSCTL_ORIG}" ]] || printf 'net.ipv4.tcp_allowed_congestion_control=%s\n' "${allowed}" > "${HOST_SYSCTL_ORIG}"
    echo "${wanted}" > "${HOST_CC_ALLOWED}"
    log "host: tcp_allowed_congestion_control '${allowed}' -> '${wanted}' (lab/down.sh restores it)"
  fi
}

# Host: every systemd container takes several inotify instances (systemd, journald, logind, ...),
# and all rootful containers share root's fs.inotify.max_user_instances (often 128). Past it,
# systemd in a new container never finishes booting. ensure_host_inotify RECORD WANT raises it and
# keeps the original in RECORD (one record per fleet script); restore_host_inotify RECORD puts it back.
INOTIFY_INSTANCES=/proc/sys/fs/inotify/max_user_instances
ensure_host_inotify() {
  local record="$1" want="$2" have
  have="$(cat "${INOTIFY_INSTANCES}")"
  (( have >= want )) && return 0
  mkdir -p "$(dirname "${record}")"
  [[ -e "${record}" ]] || printf 'fs.inotify.max_user_instances=%s\n' "${have}" > "${record}"
  echo "${want}" > "${INOTIFY_INSTANCES}"
  log "host: fs.inotify.max_user_instances ${have} -> ${want} (restored by this script's down)"
}
restore_host_inotify() {
  local record="$1" orig
  [[ -s "${record}" ]] || return 0
  orig="$(sed -n 's/^fs\.inotify\.max_user_instances=//p' "${record}")"
  [[ -n "${orig}" ]] && echo "${orig}" > "${INOTIFY_INSTANCES}" && log "host: fs.inotify.max_user_instances restored to ${orig}"
  rm -f "${record}"
}

# wait_systemd NAME: until systemd in the container answers running or degraded ("degraded" is
# acceptable: sshd and wg-quick are what matter). podman exec can fail for a moment right after the
# start, so ask again. Fails naming the state.
wait_systemd() {
  local name="$1" state="" _t
  for _t in $(seq 1 60); do
    state="$(timeout 120 podman exec "${name}" systemctl is-system-running --wait 2>/dev/null || true)"
    [[ "${state}" == running || "${state}" == degraded ]] && return 0
    sleep 2
  done
  log "${name}: systemd state '${state}'"
  return 1
}

# ssh_ok KEY ADDRESS: root logs in with KEY and runs true.
ssh_ok() {
  ssh -i "$1" -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "root@$2" true
}
