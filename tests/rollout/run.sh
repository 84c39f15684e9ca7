#!/usr/bin/env bash
# Rollout control on the lab (docs/rollout.md), against the running lab with its tunnels up
# (make lab-up; planted faults or fixed, either way):
#  1. a "tarpit" (its own network namespace, 172.31.249.2: accepts TCP on port 22, never speaks
#     SSH) among the lab's hosts: diagnose.yml -e tunnelfix_measure=false marks it UNREACHABLE
#     after ansible.cfg's connect timeout, the other hosts finish, the run does not stall;
#  2. a remote command that never ends is cut by the playbooks' task timeout (hang.yml);
#  3. serial, canary and max_fail_percentage on diagnose.yml with a router alias that fails:
#     a failed canary batch stops the run; batches of 2 go on past one failure; with
#     tunnelfix_max_fail_percentage=0 they stop; a bad tunnelfix_serial is refused by name;
#  4. five peers (aliases of peer and owrt) measured against the one hub (iperf3_many.yml):
#     every single flow and sweep test is a real measurement in one iperf3 run (no "server is busy");
#  5. another server on the hub's iperf3 port (python3 -m http.server on its tunnel address): the
#     peer's single flow fails at once naming the port and the process, and no iperf3 is left running.
# The namespace, its veth and the tarpit are removed on any exit. Leaves the lab as it found it
# (read-only runs; iperf3 servers are one-off).
#
# Usage: tests/rollout/run.sh [GROUP...]   GROUP: tarpit hang batches many busy (default: all five)
#        ROLLOUT_KEEP=1 keeps the logs and inventories (the directory is printed at the end).
set -euo pipefail
cd "$(dirname "$0")/../.."
groups=" ${*:-tarpit hang batches many busy} "
want() { [[ "$groups" == *" $1 "* ]]; }
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg" CONTAINERS_CONF="$PWD/lab/containers.conf"
lab_inventory=lab/state/inventory.yml
[[ -s "$lab_inventory" ]] || { echo "no $lab_inventory: start the lab first (make lab-up)"; exit 1; }
[[ "$(id -u)" -eq 0 ]] || { echo "must run as root (ip netns)"; exit 1; }

netns=tf-rollout                 # ours alone; the lab uses 172.31.254.0/24, the bench 172.31.250.0/24
veth_host=tfro-h veth_ns=tfro-n
host_ip=172.31.249.1 tarpit_ip=172.31.249.2
work=$(mktemp -d /tmp/tunnelfix-rollout.XXXXXX)
tarpit_pid=
cleanup() {
  if [[ -n "$tarpit_pid" ]]; then kill "$tarpit_pid" 2>/dev/null || true; fi
  ip netns del "$netns" 2>/dev/null || true
  ip link del "$veth_host" 2>/dev/null || true
  if [[ -n "${ROLLOUT_KEEP:-}" ]]; then echo "logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
failures=0
SECONDS=0

# A stale namespace from an interrupted run goes first.
ip netns del "$netns" 2>/dev/null || true
ip link del "$veth_host" 2>/dev/null || true
ip netns add "$netns"
ip link add "$veth_host" type veth peer name "$veth_ns"
ip link set "$veth_ns" netns "$netns"
ip addr add "$host_ip/24" dev "$veth_host"
ip link set "$veth_host" up
ip -n "$netns" addr add "$tarpit_ip/24" dev "$veth_ns"
ip -n "$netns" link set lo up
ip -n "$netns" link set "$veth_ns" up
ip netns exec "$netns" python3 tests/rollout/tarpit.py "$tarpit_ip" 22 > "$work/tarpit.out" 2>&1 &
tarpit_pid=$!
for _ in $(seq 50); do grep -q '^listening' "$work/tarpit.out" && break; sleep 0.1; done
grep -q '^listening' "$work/tarpit.out" || { echo "FAIL: the tarpit did not start: $(cat "$work/tarpit.out")"; exit 1; }

for kind in tarpit canary many; do
  python3 tests/rollout/rollout_lab.py inventory "$kind" "$lab_inventory" "$work/$kind.yml"
done

# run NAME CHECK_ARG ansible-playbook args...: run, time it, judge it with rollout_lab.py check NAME.
run() {
  local name="$1" arg="$2" rc=0 start end; shift 2
  echo "== $name: ansible-playbook $*"
  start=$(date +%s.%N)
  ansible-playbook "$@" > "$work/$name.log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  local wall; wall=$(python3 -c "print(round($end - $start, 1))")
  echo "   exit $rc after $wall s"
  if ! python3 tests/rollout/rollout_lab.py check "$name" "$work/$name.log" "$rc" "$wall" "$arg"; then
    failures=$((failures + 1)); tail -40 "$work/$name.log"
  fi
}

connect_timeout_s=$(ansible-config dump 2>/dev/null | sed -n 's/^DEFAULT_TIMEOUT([^)]*) = //p')
connect_timeout_s=${connect_timeout_s:-10}
reports="$work/reports"
want tarpit && run tarpit "$connect_timeout_s" -i "$work/tarpit.yml" playbooks/diagnose.yml -e tunnelfix_measure=false \
  -e tunnel_measure_report_dir="$reports"

if want hang; then
  run hang 8 -i "$lab_inventory" tests/rollout/hang.yml \
    -e rollout_test_sleep_s=597 -e tunnelfix_task_timeout_s=8
  # The timeout ends Ansible's wait; the remote command may still run: end it (its unique argv).
  ansible -i "$lab_inventory" hub:peer -m ansible.builtin.raw -a "pgrep -a -f '^sleep 597' || true" > "$work/hang-left.log" 2>&1 || true
  echo "   remote commands still running after the timeout (then ended here): $(grep -c ' sleep 597$' "$work/hang-left.log" || true)"
  ansible -i "$lab_inventory" hub:peer -m ansible.builtin.raw -a "pkill -x -f 'sleep 597' || true" > /dev/null 2>&1 || true
fi

if want batches; then
  run canary_stops "" -i "$work/canary.yml" playbooks/diagnose.yml -e tunnelfix_measure=false \
    -e tunnel_measure_report_dir="$reports" -e tunnelfix_canary=1
  run serial_continues "" -i "$work/canary.yml" playbooks/diagnose.yml -e tunnelfix_measure=false \
    -e tunnel_measure_report_dir="$reports" -e tunnelfix_serial=2
  run max_fail_stops "" -i "$work/canary.yml" playbooks/diagnose.yml -e tunnelfix_measure=false \
    -e tunnel_measure_report_dir="$reports" -e tunnelfix_serial=2 -e tunnelfix_max_fail_percentage=0
  run bad_serial "" -i "$work/canary.yml" playbooks/diagnose.yml -e tunnelfix_measure=false \
    -e tunnel_measure_report_dir="$reports" -e tunnelfix_serial=two
fi

# A canary batch of 1, then 4 at once: the report files must hold all five, and the last client of
# the second batch waits for its turn (flows run one at a time) with its server still up.
want many && run many "$work/many-reports" -i "$work/many.yml" tests/rollout/iperf3_many.yml -e tunnelfix_canary=1 \
  -e tunnel_measure_report_dir="$work/many-reports" -e tunnel_sweep_report_dir="$work/many-reports"

if want busy; then
  busy_port=5290
  hub_address=$(python3 -c 'import sys, yaml; inv = yaml.safe_load(open(sys.argv[1]))
print(inv["all"]["children"]["tunnelfix_wireguard_hubs"]["hosts"]["hub"]["tunnelfix_tunnel_address"])' "$lab_inventory")
  squatter="python3 -m http.server --bind $hub_address $busy_port"
  ansible -i "$lab_inventory" hub -m ansible.builtin.raw \
    -a "setsid $squatter </dev/null >/dev/null 2>&1 & sleep 1; ss -Hltn 'sport = :$busy_port'" > "$work/busy-start.log" 2>&1
  run busy_port "$busy_port" -i "$lab_inventory" tests/rollout/iperf3_many.yml --limit peer \
    -e tunnel_measure_iperf3_port="$busy_port" -e tunnel_measure_report_dir="$work/busy-reports" \
    -e tunnel_sweep_report_dir="$work/busy-reports"
  ansible -i "$lab_inventory" hub:peer -m ansible.builtin.raw -a "pgrep -a iperf3 || true" > "$work/busy-left.log" 2>&1 || true
  ansible -i "$lab_inventory" hub -m ansible.builtin.raw -a "pkill -f '^$squatter\$' || true" > /dev/null 2>&1 || true
  if grep -q 'iperf3 ' "$work/busy-left.log"; then
    echo "FAIL busy_port: an iperf3 is still running after the run:"; grep 'iperf3 ' "$work/busy-left.log"
    failures=$((failures + 1))
  else
    echo "PASS busy_port: no iperf3 left running on the hub or the peer"
  fi
fi

echo "rollout tests: $failures failed, ${SECONDS} s"
[[ "$failures" -eq 0 ]]
