# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The path_mtu_ladder action: its one script really run by dash and BusyBox ash against a stub ping with a black hole."""

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.path_mtu_ladder import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis

HUB_KEY = "H" * 43 + "="
# The host programs this file runs by name (scripts/check_host_packages.py).
HOST_COMMANDS = ("dash", "busybox", "sh")
# A stub iputils ping: answers sizes up to the target's limit (a black hole above it: no reply, no ICMP), none at all for
# a target it does not know (an unreachable peer). Logs every size it was asked to send.
STUB_PING = r"""#!/bin/sh
[ "$1" = -V ] && { echo 'ping from iputils 20221126'; exit 0; }
size='' target='' df=''
while [ $# -gt 0 ]; do
  case $1 in -s) size=$2; shift ;; -M) df=$2; shift ;; -c|-W) shift ;; -4|-6) ;; *) target=$1 ;; esac
  shift
done
echo "$target $size $df" >> "$PING_LOG"
case $target in 10.198.2.2) limit=1372 ;; 10.77.0.1) limit=1312 ;; *) limit=-1 ;; esac
if [ "$size" -le "$limit" ]; then echo '1 packets transmitted, 1 received, 0% packet loss'; exit 0; fi
echo '1 packets transmitted, 0 received, 100% packet loss'; exit 1
"""


def linux_view(endpoint="10.198.2.2", tunnel_mtu=1420, peers=True):
    """A Linux peer: wg0 with one peer (the hub) reached through eth0; the tunnel's subnet in its AllowedIPs."""
    peer = {"public_key": HUB_KEY, "endpoint_host": endpoint, "allowed_ips": ["10.77.0.0/24"]}
    return {"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": "hub", "openwrt": None, "path_mtu": None,
            "tunnelfix": {"wireguard": {"available": True, "configs": [], "interfaces": {"wg0": {"peers": [peer] if peers else []}}},
                          "routes": {"default": [], "endpoints": {endpoint: {"dev": "eth0", "gateway": "192.0.2.1"}}},
                          "link_mtu": {"devices": {"eth0": 1500, "wg0": tunnel_mtu}, "note": None}}}


class Target:
    """A host whose ``sh`` is ``shell`` and whose ``ping`` is STUB_PING; runs what the action sends, stdin included."""

    def __init__(self, root: Path, shell: str):
        self.bin, self.log = root / "bin", root / "ping.log"
        self.bin.mkdir(parents=True)
        (self.bin / "sh").symlink_to(shutil.which(shell))
        (self.bin / "ping").write_text(STUB_PING, encoding="utf-8")
        (self.bin / "ping").chmod(0o755)
        self.env = {"PATH": "%s:/usr/bin:/bin" % self.bin, "PING_LOG": str(self.log), "LC_ALL": "C"}

    def execute(self, cmd, in_data):
        done = subprocess.run([str(self.bin / "sh"), "-c", cmd], input=in_data, env=self.env, capture_output=True, timeout=120,
                              check=False)
        return {"rc": done.returncode, "stdout": done.stdout.decode(), "stderr": done.stderr.decode()}

    def pings(self):
        return self.log.read_text(encoding="utf-8").splitlines() if self.log.exists() else []


def action(args, target=None, check_mode=False):
    class Fake(ActionModule):
        def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                       encoding_errors="surrogate_then_replace", chdir=None):
            self.ran.append((cmd, in_data))
            if target is None:
                raise AssertionError("nothing may run on the target: %s" % cmd)
            return target.execute(cmd, in_data)

    task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=False, action="tunnelfix.fleet.path_mtu_ladder")
    fake = Fake(task, SimpleNamespace(_shell=SimpleNamespace(tmpdir=None)), None, None, None)
    fake._load_name, fake.ran = "tunnelfix.fleet.path_mtu_ladder", []
    return fake


@pytest.fixture(name="target", params=["dash", "busybox"])
def fixture_target(request, tmp_path):
    return Target(tmp_path, request.param)


def test_one_execution_runs_both_ladders_and_the_record_finds_the_black_hole(target):
    view = linux_view()
    fake = action({"view": view, "hub_address": "10.77.0.1", "phase": "before", "interval_ms": 0}, target, check_mode=True)
    result = fake.run(task_vars={"inventory_hostname": "peer"})
    assert not result.get("failed"), result
    assert result["changed"] is False and result["cmd"] == "sh <PMTU ladder script: 2 ladders>"
    (cmd, script), = fake.ran
    assert cmd == "sh" and b"target_=10.198.2.2" in script and b"target_=10.77.0.1" in script
    record = result["record"]
    assert (record["phase"], record["ladders_run"], record["interval_ms"]) == ("before", 2, 0)
    (entry,) = record["tunnels"]
    assert (entry["outer"]["path_mtu_bytes"], entry["inner"]["path_mtu_bytes"]) == (1400, 1340)
    assert entry["outer"]["invalid"] is None and entry["inner"]["invalid"] is None
    # every ping of the outer ladder first, then the inner one's, each with DF (-M do)
    pings = target.pings()
    outer_count = entry["outer"]["pings_sent"]
    assert {line.split()[0] for line in pings[:outer_count]} == {"10.198.2.2"}
    assert {line.split()[0] for line in pings[outer_count:]} == {"10.77.0.1"}
    assert len(pings) == outer_count + entry["inner"]["pings_sent"] and all(line.endswith(" do") for line in pings)
    view["path_mtu"] = record
    document = diagnosis({"peer": view})
    (finding,) = [f for f in document["findings"] if f["id"] == "path_mtu_black_hole"]
    assert (finding["evidence"]["outer_path_mtu_bytes"], finding["evidence"]["inner_path_mtu_bytes"],
            finding["evidence"]["set_mtu_bytes"]) == (1400, 1340, 1340)


def test_an_unreachable_peer_is_an_invalid_ladder_not_a_failure(target):
    fake = action({"view": linux_view(endpoint="10.198.2.9"), "phase": "after", "interval_ms": 0, "attempts": 1}, target)
    result = fake.run(task_vars={})
    assert not result.get("failed"), result
    (entry,) = result["record"]["tunnels"]
    assert "unreachable" in entry["outer"]["invalid"] and entry["outer"]["pings_sent"] == 1
    # no hub address and AllowedIPs without a host address: the inner ladder does not run, its note says why
    assert entry["inner"] is None and "far tunnel address is unknown" in entry["inner_note"]
    assert result["cmd"] == "sh <PMTU ladder script: 1 ladder>"


@pytest.mark.parametrize("view", [
    {"groups": [], "tunnelfix": {"wireguard": {"interfaces": {}}}, "openwrt": None},   # no tunnel
    {"groups": [], "tunnelfix": None, "openwrt": None},                                  # no facts at all
    linux_view(peers=False),                                                            # a tunnel whose peer has no endpoint
])
def test_a_host_without_a_ladder_to_run_runs_nothing(view):
    fake = action({"view": view, "phase": "before"})
    result = fake.run(task_vars={})
    assert not result.get("failed"), result
    assert fake.ran == [] and result["cmd"] is None
    assert result["record"]["phase"] == "before" and result["record"]["ladders_run"] == 0


def banip(limit):
    """openwrt_facts' banip with its table loaded and an ICMP limit rule of ``limit``/s."""
    return {"installed": True, "nft_table_loaded": True, "icmp_limit_rule": {"rate_per_second": limit, "burst_packets": 5}}


@pytest.mark.parametrize("facts, interval", [
    (None, 200),          # no router: the default, 5/s
    (banip(25), 200),     # banIP's default 25/s: a fifth of it is the default already
    (banip(10), 500),     # a lower limit: a longer pause
])
def test_the_pause_stays_inside_a_fifth_of_banips_loaded_limit(facts, interval):
    view = {"groups": ["tunnelfix_openwrt"], "tunnelfix": None, "openwrt": {"wireguard": {"interfaces": {}}, "banip": facts}}
    result = action({"view": view, "phase": "before"}).run(task_vars={})
    assert result["interval_ms"] == interval and result["record"]["interval_ms"] == interval


@pytest.mark.parametrize("args, named", [
    ({"view": linux_view(), "phase": "later"}, "phase"),
    ({"view": linux_view()}, "phase"),
    ({"phase": "before"}, "view"),
    ({"view": linux_view(), "phase": "before", "interval_ms": 10001}, "interval_ms must be a whole number 0-10000, got 10001"),
    ({"view": linux_view(), "phase": "before", "attempts": 0}, "attempts must be a whole number 1-5, got 0"),
    ({"view": linux_view(), "phase": "before", "timeout_s": 61}, "timeout_s must be a whole number 1-60, got 61"),
    ({"view": linux_view(), "phase": "before", "ping_command": "ping; reboot"}, "ping_command"),
    ({"view": {}, "phase": "before", "attempts": 0}, "attempts must be a whole number 1-5, got 0"),   # also with no ladder to run
    ({"view": {}, "phase": "before", "timeout_s": 0}, "timeout_s must be a whole number 1-60, got 0"),
])
def test_bad_input_fails_naming_the_option_and_runs_nothing(args, named):
    fake = action(args)
    result = fake.run(task_vars={})
    assert result["failed"] is True and named in result["msg"] and fake.ran == []
