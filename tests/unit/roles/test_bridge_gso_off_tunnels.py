# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bridge_gso_off's tunnel persistence (issue 17.8): the udev rule, the OpenWrt hotplug script and the re-apply
script, rendered by Ansible's templating as the role renders them and run with dash and BusyBox sh."""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

ROLE = Path(__file__).resolve().parents[3] / "roles" / "bridge_gso_off"
SHELLS = ("dash", "busybox")
# The host programs this file runs by name (scripts/check_host_packages.py).
HOST_COMMANDS = ("dash", "busybox", "cat")


def render(template, **variables):
    """``template`` of the role with its defaults, the platform's paths and ``variables``, as the role's lookup renders it."""
    values = dict(yaml.safe_load((ROLE / "defaults" / "main.yml").read_text(encoding="utf-8")),
                  ansible_managed="Ansible managed", __bridge_gso_off_platform={"platform": "linux"})
    # role vars are templates, as Ansible trusts a role's own files
    values.update({name: trust_as_template(value) if isinstance(value, str) else value
                   for name, value in yaml.safe_load((ROLE / "vars" / "main.yml").read_text(encoding="utf-8")).items()})
    values.update(variables)
    templar = Templar(loader=DataLoader(), variables=values)
    return templar.template(trust_as_template((ROLE / "templates" / template).read_text(encoding="utf-8")))


def test_the_udev_rule_matches_the_devices_by_name_on_add():
    text = render("tunnelfix-tunnel-offload.rules.j2", bridge_gso_off_tunnels=["tailscale0", "wg0"])
    rules = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert rules == ['ACTION=="add", SUBSYSTEM=="net", KERNEL=="tailscale0|wg0", '
                     'RUN+="/usr/local/sbin/tunnelfix-tunnel-offload $name"']
    assert text.startswith("#\n# Ansible managed\n#\n")


def test_the_role_writes_the_rule_and_script_where_each_platform_runs_them():
    files = yaml.safe_load((ROLE / "vars" / "main.yml").read_text(encoding="utf-8"))["__bridge_gso_off_tunnel_files"]
    assert [(f["template"], f["mode"]) for f in files["linux"]] == [
        ("tunnelfix-tunnel-offload.sh.j2", "0755"), ("tunnelfix-tunnel-offload.rules.j2", "0644")]
    assert files["linux"][1]["path"] == "/etc/udev/rules.d/90-tunnelfix-tunnel-offload.rules"
    assert files["openwrt"][1] == {"path": "/etc/hotplug.d/net/99-tunnelfix-tunnel-offload", "template": "hotplug-net.sh.j2",
                                   "mode": "0755"}


def shell_argv(shell):
    return [shutil.which("busybox"), "sh"] if shell == "busybox" else [shutil.which(shell)]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("action, interface, runs", [
    ("add", "wg0", True),
    ("add", "tailscale0", True),
    ("remove", "wg0", False),
    ("add", "wg01", False),          # the names are matched whole
    ("add", "eth0", False),
])
def test_the_hotplug_script_runs_the_re_apply_script_when_a_tunnel_is_added(shell, tmp_path, action, interface, runs):
    log = tmp_path / "ran"
    script = tmp_path / "tunnelfix-tunnel-offload"
    script.write_text("#!/bin/sh\necho \"$@\" >> %s\n" % log, encoding="utf-8")
    script.chmod(0o755)
    text = render("hotplug-net.sh.j2", __bridge_gso_off_platform={"platform": "openwrt"}, bridge_gso_off_tunnels=["wg0", "tailscale0"],
                  __bridge_gso_off_tunnel_script_path=str(script))
    hotplug = tmp_path / "99-tunnelfix-tunnel-offload"
    hotplug.write_text(text, encoding="utf-8")
    # hotplug-call sources every script of /etc/hotplug.d/net with ACTION and INTERFACE set
    done = subprocess.run(shell_argv(shell) + ["-c", '. "$1"; echo sourced', "sh", str(hotplug)], capture_output=True,
                          text=True, env={"ACTION": action, "INTERFACE": interface, "PATH": "/usr/bin:/bin"}, timeout=30, check=False)
    assert (done.returncode, done.stdout) == (0, "sourced\n")    # sourced: it must never exit the caller
    assert (log.read_text(encoding="utf-8") if log.exists() else "") == ("%s\n" % interface if runs else "")


@pytest.fixture
def target(tmp_path):
    """A fake /sys/class/net (sysfs type per device) behind a stub cat, and an ethtool stub that logs its arguments."""
    net = tmp_path / "sys" / "class" / "net"
    for name, arphrd in (("tailscale0", "65534"), ("gre1", "778"), ("eth0", "1"), ("br-lan", "1"), ("tap0", "1")):
        (net / name).mkdir(parents=True)
        (net / name / "type").write_text(arphrd + "\n", encoding="utf-8")
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "cat").write_text('#!/bin/sh\nexec %s "%s${1#/sys}"\n' % (shutil.which("cat"), tmp_path / "sys"), encoding="utf-8")
    (tools / "ethtool").write_text('#!/bin/sh\necho "$*" >> %s\n[ "$3" != gso ] || [ "$2" != gre1 ]\n' % (tmp_path / "ethtool.log"),
                                   encoding="utf-8")
    for tool in ("cat", "ethtool"):
        (tools / tool).chmod(0o755)
    return tmp_path


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("devices, features, calls, rc", [
    (["tailscale0"], ["tso", "gso"], ["-K tailscale0 tso off", "-K tailscale0 gso off"], 0),
    # a feature ethtool refuses ([fixed]) does not stop the next one
    (["gre1"], ["gso", "tso"], ["-K gre1 gso off", "-K gre1 tso off"], 0),
    # a NIC, a bridge, a TAP or a device that is gone: left alone, said on stderr, exit 1
    (["eth0", "tailscale0"], ["tso"], ["-K tailscale0 tso off"], 1),
    (["br-lan"], ["tso"], [], 1),
    (["tap0"], ["tso"], [], 1),
    (["wg9"], ["tso"], [], 1),
])
def test_the_re_apply_script_turns_the_features_off_on_tunnels_only(shell, target, devices, features, calls, rc):
    script = target / "tunnelfix-tunnel-offload"
    script.write_text(render("tunnelfix-tunnel-offload.sh.j2", bridge_gso_off_tunnel_features=features), encoding="utf-8")
    done = subprocess.run(shell_argv(shell) + [str(script)] + devices, capture_output=True, text=True,
                          env={"PATH": str(target / "bin")}, timeout=30, check=False)
    log = target / "ethtool.log"
    assert (log.read_text(encoding="utf-8").splitlines() if log.exists() else []) == calls
    assert done.returncode == rc
    if rc:
        assert "not a layer-3 tunnel, left alone" in done.stderr
