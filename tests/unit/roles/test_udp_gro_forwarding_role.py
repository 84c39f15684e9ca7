# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role udp_gro_forwarding's re-apply hooks (issue 17.9), rendered from its templates and vars and run for real
under dash, bash and BusyBox sh with a stub ethtool: each sets the features for its NIC's event only and never
fails the interface; the Linux probe's output chooses the hook; the filter reads host_facts' result."""

import os
import subprocess
from pathlib import Path

import jinja2
import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.plugins.filter.core import comment, quote

from ansible_collections.tunnelfix.fleet.plugins.filter.udp_gro import udp_gro_forwarding_hook_probe, udp_gro_forwarding_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.plan import udp_gro_plan

ROLE = Path(__file__).resolve().parents[3] / "roles" / "udp_gro_forwarding"
VARS = yaml.safe_load((ROLE / "vars" / "main.yml").read_text(encoding="utf-8"))
HOOKS = VARS["__udp_gro_forwarding_hooks"]
SHELLS = HOST_COMMANDS = ("dash", "bash", "busybox")
FACTS = {"kernel_release": "6.6.73", "kernel_version": [6, 6, 73], "ip_forward": 1,
         "tunnels": {"tailscale0": {"kind": "tun", "mtu": 1280, "operstate": "UNKNOWN"}},
         "nics": [{"device": "eth0", "families": ["inet"], "gateways": {"inet": "192.0.2.1"}, "through_tunnel": None,
                   "features": {"rx-udp-gro-forwarding": "off", "rx-gro-list": "on", "generic-receive-offload": "on"},
                   "ethtool_error": None}],
         "ethtool_installed": True, "note": None}


def render(method):
    hook = HOOKS[method]
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ROLE / "templates")), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    env.filters.update(comment=comment, quote=quote)
    return hook, env.get_template(hook["template"]).render(
        ansible_managed="Ansible managed", __udp_gro_forwarding_plan=udp_gro_plan(FACTS), __udp_gro_forwarding_hook=hook)


class Host:
    def __init__(self, tmp_path, shell, ethtool_rc=0):
        stubs = tmp_path / "stubs"
        stubs.mkdir()
        self.log = tmp_path / "ethtool.log"
        (stubs / "ethtool").write_text('#!/bin/sh\necho "$*" >> %s\nexit %d\n' % (self.log, ethtool_rc), encoding="utf-8")
        (stubs / "ethtool").chmod(0o755)
        self.path = "%s:%s" % (stubs, os.environ["PATH"])
        self.argv = ["busybox", "sh"] if shell == "busybox" else [shell]
        self.tmp_path = tmp_path

    def run(self, script, args=(), **env):
        path = self.tmp_path / "hook"
        path.write_text(script, encoding="utf-8")
        done = subprocess.run(self.argv + [str(path), *args], capture_output=True, text=True, timeout=10, check=False,
                              env=dict(env, PATH=self.path))
        ran = self.log.read_text(encoding="utf-8").splitlines() if self.log.exists() else []
        if self.log.exists():
            self.log.unlink()
        return done.returncode, ran

    def source(self, script, **env):
        """hotplug-call's way: ``( . script )`` with the event in the environment."""
        path = self.tmp_path / "99-sourced"
        path.write_text(script, encoding="utf-8")
        return self.run("( . %s )\n" % path, **env)


WANTED = ["-K eth0 rx-udp-gro-forwarding on rx-gro-list off"]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("method, event, other", [
    ("networkd-dispatcher", ((), {"IFACE": "eth0"}), ((), {"IFACE": "tailscale0"})),
    ("ifupdown", ((), {"IFACE": "eth0", "MODE": "start"}), ((), {"IFACE": "lo", "MODE": "start"})),
    ("networkmanager", (("eth0", "up"), {}), (("eth0", "down"), {})),
])
def test_linux_hooks_set_the_features_when_the_nic_comes_up_and_never_fail(tmp_path, shell, method, event, other):
    hook, script = render(method)
    assert script.startswith("#!/bin/sh\n#\n# Ansible managed\n#\n")
    host = Host(tmp_path, shell)
    assert host.run(script, event[0], **event[1]) == (0, WANTED)
    assert host.run(script, other[0], **other[1]) == (0, [])
    failing = Host(tmp_path / "x", shell, ethtool_rc=1) if (tmp_path / "x").mkdir() is None else None
    assert failing.run(script, event[0], **event[1]) == (0, WANTED)      # a NIC that refuses: the interface still comes up
    assert hook["path"].startswith(("/etc/networkd-dispatcher/routable.d/", "/etc/network/if-up.d/",
                                    "/etc/NetworkManager/dispatcher.d/"))


@pytest.mark.parametrize("shell", SHELLS)
def test_the_openwrt_hotplug_script_acts_on_the_nics_ifup_only(tmp_path, shell):
    hook, script = render("openwrt")
    assert hook["path"] == "/etc/hotplug.d/iface/50-tunnelfix-udp-gro"
    host = Host(tmp_path, shell)
    assert host.source(script, ACTION="ifup", INTERFACE="wan", DEVICE="eth0") == (0, WANTED)
    assert host.source(script, ACTION="ifupdate", INTERFACE="wan", DEVICE="eth0") == (0, WANTED)
    assert host.source(script, ACTION="ifdown", INTERFACE="wan", DEVICE="eth0")[1] == []
    assert host.source(script, ACTION="ifup", INTERFACE="lan", DEVICE="br-lan")[1] == []


def test_no_uci_gro_option_anywhere_in_the_role():
    """netifd's device option gro is GRO as a whole: the fix must never go through uci."""
    for path in [path for folder in ("tasks", "templates", "vars") for path in (ROLE / folder).iterdir()]:
        if path.is_file():
            code = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines() if not line.lstrip().startswith("#"))
            assert "uci" not in code and ".gro=" not in code and "option gro" not in code, path


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("running, ifupdown, method", [
    (("systemd-networkd", "networkd-dispatcher"), False, "networkd-dispatcher"),
    (("NetworkManager",), True, "networkmanager"),
    ((), True, "ifupdown"),
    (("systemd-networkd",), True, None),
])
def test_the_linux_probe_command_chooses_the_hook(tmp_path, shell, running, ifupdown, method):
    """The role's raw probe, run with a stub systemctl: its output is what the filter parses."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    cases = " ".join("%s.service) echo running ;;" % unit for unit in running)
    (stubs / "systemctl").write_text('#!/bin/sh\ncase "$5" in %s *) echo dead ;; esac\n' % cases, encoding="utf-8")
    (stubs / "systemctl").chmod(0o755)
    command = VARS["__udp_gro_forwarding_linux_probe_command"]
    if not ifupdown:
        command = command.replace("/etc/network/interfaces", str(tmp_path / "no-interfaces"))
    else:
        (tmp_path / "interfaces").write_text("auto lo\n", encoding="utf-8")
        (tmp_path / "ifup").write_text("", encoding="utf-8")
        command = command.replace("/etc/network/interfaces", str(tmp_path / "interfaces")).replace("/sbin/ifup", str(tmp_path / "ifup"))
    argv = ["busybox", "sh"] if shell == "busybox" else [shell]
    done = subprocess.run(argv + ["-c", command], capture_output=True, text=True, timeout=10, check=True,
                          env={"PATH": "%s:%s" % (stubs, os.environ["PATH"])})
    assert udp_gro_forwarding_hook_probe(done.stdout)["method"] == method


def test_the_filter_reads_host_facts_result_on_both_platforms():
    for key in ("tunnelfix", "tunnelfix_openwrt"):
        result = {"changed": False, "ansible_facts": {key: {"udp_gro": FACTS}}}
        assert udp_gro_forwarding_plan(result, "", 30)["ethtool"] == "ethtool -K eth0 rx-udp-gro-forwarding on rx-gro-list off"
    assert udp_gro_forwarding_plan(FACTS, None)["device"] == "eth0"
    with pytest.raises(AnsibleFilterError, match="udp_gro_forwarding: udp_gro_forwarding_device=br-lan is not the default-route NIC"):
        udp_gro_forwarding_plan(FACTS, "br-lan")
    with pytest.raises(AnsibleFilterError, match="has no udp_gro subset"):
        udp_gro_forwarding_plan({"ansible_facts": {"tunnelfix": {"routes": {}}}})
    with pytest.raises(AnsibleFilterError, match="udp_gro_forwarding_hook_probe: hook probe line 1"):
        udp_gro_forwarding_hook_probe("what\n")


def test_the_roles_defaults_and_specs_agree():
    defaults = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text(encoding="utf-8"))
    specs = yaml.safe_load((ROLE / "meta" / "argument_specs.yml").read_text(encoding="utf-8"))["argument_specs"]["main"]["options"]
    assert {name: spec["default"] for name, spec in specs.items()} == defaults
    assert defaults["udp_gro_forwarding_enable"] is False


def test_a_change_without_the_hook_leaves_a_runtime_only_notice():
    """Issue 30.4: with udp_gro_forwarding_persist=false the role sets its notice (the run's summary prints it with the
    host) once the change held, in the guarded block after the NIC was read back; the words are remediate_summary's."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.remediate_summary import runtime_only_text
    tasks = yaml.safe_load((ROLE / "tasks" / "apply.yml").read_text(encoding="utf-8"))
    guarded = next(task for task in next(t for t in tasks if "block" in t)["block"]
                   if task.get("name") == "Change the features, guarded")["block"]
    names = [task["name"] for task in guarded]
    notice = next(task for task in guarded if "runtime only" in task["name"])
    assert names.index(notice["name"]) > names.index("Check the NIC shows the features now")
    assert notice["when"] == "not (udp_gro_forwarding_persist | bool)"
    assert "__udp_gro_forwarding_runtime_only" in notice["ansible.builtin.set_fact"]["udp_gro_forwarding_notices"]
    text = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(VARS["__udp_gro_forwarding_runtime_only"]).render(
        __udp_gro_forwarding_plan=udp_gro_plan(FACTS))
    assert text.startswith("udp_gro_forwarding: " + runtime_only_text("udp_gro_forwarding_persist") + ":") and "eth0" in text


def test_the_guarded_ethtool_change_carries_its_diff():
    """Issue 30.4: under --diff the Linux ethtool change shows each feature before and after (check and real mode)."""
    tasks = yaml.safe_load((ROLE / "tasks" / "apply.yml").read_text(encoding="utf-8"))
    guarded = next(task for task in next(t for t in tasks if "block" in t)["block"]
                   if task.get("name") == "Change the features, guarded")["block"]
    applied = next(task["tunnelfix.fleet.guarded_apply"] for task in guarded
                   if "apply" in task.get("tunnelfix.fleet.guarded_apply", {}))
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    plan = udp_gro_plan(FACTS)
    sides = {side: env.from_string(applied["diff_" + side]).render(__udp_gro_forwarding_plan=plan) for side in ("before", "after")}
    assert sides == {"before": "eth0 rx-udp-gro-forwarding: off\neth0 rx-gro-list: on\n",
                     "after": "eth0 rx-udp-gro-forwarding: on\neth0 rx-gro-list: off\n"}
