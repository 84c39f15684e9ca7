#!/usr/bin/env bash
# Feed every role and plugin of tunnelfix.fleet bad input (tests/bad_input/cases.yml) through real
# ansible-playbook and check each fails naming the option and the value, without a traceback.
# Needs only `make deps` (the venv): no lab. Nothing changes on the controller: its cases run in
# check mode, role cases without a reachable host, files only under a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
export ANSIBLE_CONFIG="$PWD/ansible.cfg" PATH="$PWD/.venv/bin:$PATH"
export ANSIBLE_STDOUT_CALLBACK=ansible.builtin.json ANSIBLE_NOCOLOR=1 ANSIBLE_DEPRECATION_WARNINGS=false
export ANSIBLE_SSH_ARGS="-o ControlMaster=no -o ConnectTimeout=5"
python="$PWD/.venv/bin/python"

work=$(mktemp -d /tmp/tunnelfix-bad-input.XXXXXX)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/tmp/wireguard" "$work/tmp/network" "$work/notools"
# One wg-quick file (fake keys) so "missing interface" means that name, not "no WireGuard at all".
printf '[Interface]\nPrivateKey = %s\n\n[Peer]\nPublicKey = %s\nEndpoint = 192.0.2.1:51820\n' \
  "$(printf 'x%.0s' $(seq 43))=" "$(printf 'y%.0s' $(seq 43))=" >"$work/tmp/wireguard/wg9.conf"
# The notools run's PATH: every command of this machine but iperf3 and uci, as on a host without them.
for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
  [ -d "$dir" ] || continue
  for tool in "$dir"/*; do
    name=${tool##*/}
    case $name in iperf3 | uci) continue ;; esac
    [ -e "$work/notools/$name" ] || ln -s "$tool" "$work/notools/$name"
  done
done
# Loopback TCP ports nothing listens on (bound, read and released; the cases run seconds later):
# one stays closed ("server unreachable"), a one-test iperf3 server listens on the other so the
# client gets as far as choosing its congestion control ("unknown congestion control").
free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
iperf3_port=$(free_port)
timeout 120 iperf3 -s -1 -B 127.0.0.1 -p "$iperf3_port" >"$work/iperf3-server.log" 2>&1 &
server_pid=$!
extra_vars="{\"bad_input_tmp\": \"$work/tmp\", \"bad_input_closed_port\": $port, \"bad_input_iperf3_port\": $iperf3_port}"

cat >"$work/inventory.yml" <<INV
all:
  vars:
    ansible_python_interpreter: $python
  children:
    bad_input_localhost:
      hosts:
        localhost: {ansible_connection: local}
    bad_input_nohost:
      hosts:
        tf-bad-input-peer:
          ansible_host: 127.0.0.1
          ansible_port: $port
          ansible_user: nobody
          tunnelfix_tunnel_hub: tf-bad-input-hub
          tunnelfix_tunnel_address: 192.0.2.2
    bad_input_hub:
      hosts:
        tf-bad-input-hub: {ansible_host: 127.0.0.1, ansible_port: $port, tunnelfix_tunnel_address: 192.0.2.1}
INV

results=()
for run in main notools; do
  "$python" tests/bad_input/bad_input.py playbook "$run" tests/bad_input/cases.yml "$work/$run.yml"
  # notools: a PATH with neither iperf3 nor uci (only the venv), as on a host without them
  run_path=$PATH
  [ "$run" = notools ] && run_path="$PWD/.venv/bin:$work/notools"
  PATH="$run_path" ansible-playbook -i "$work/inventory.yml" "$work/$run.yml" \
    -e "$extra_vars" \
    >"$work/$run.json" 2>"$work/$run.err" || true
  results+=("$run:$work/$run.json:$work/$run.err")
done
"$python" tests/bad_input/bad_input.py check tests/bad_input/cases.yml "$extra_vars" "${results[@]}"
