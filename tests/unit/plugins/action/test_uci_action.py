# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The uci action against a fake target: argument checks, commands run, check mode, failures.

The fake answers ``_low_level_execute_command`` from a table of command → (rc, stdout,
stderr) and records what ran; no connection, no Python on any target. Like a router running
the action's scripts, it answers the redacting ``uci show`` with secret values replaced and
the digest script with the SHA-256 of the value in the last ``uci show`` answer.
"""

import hashlib
import re
import shlex
from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.uci import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import (
    uci_changes_redacted_argv, uci_secret_digest_argv, uci_show_redacted_argv)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import is_secret_option

SHOW = {shlex.join(uci_show_redacted_argv(c)): "uci -q show %s" % c for c in ("network", "banip", "firewall")}
SHOW.update({shlex.join(uci_changes_redacted_argv(c)): "uci changes %s" % c for c in ("network", "banip", "firewall")})
DIGEST_SCRIPT = uci_secret_digest_argv("x")[2]


def router_redact(text):
    """What the router's sed does: every secret option's value replaced, key shapes elsewhere too."""
    out = []
    for line in text.splitlines(keepends=True):
        key = line.split("=", 1)[0]
        if "=" in line and is_secret_option(key.rsplit(".", 1)[-1]):
            line = key + "='<redacted>'\n"
        elif not key.endswith(".public_key"):
            line = re.sub(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{43}=(?![A-Za-z0-9+/=])", "<redacted>", line)
        out.append(line)
    return "".join(out)


K = "K" * 43 + "="


class FakeUciAction(ActionModule):
    def __init__(self, args, answers, check_mode=False, diff=False):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=diff, action="tunnelfix.fleet.uci")
        connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.uci"
        self.answers = answers
        self.ran = []
        self.stdin = []
        self.last_show = ""

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        argv = shlex.split(cmd)
        if argv[:3] == ["sh", "-c", DIGEST_SCRIPT]:
            self.ran.append("digest " + argv[-1])
            values = re.findall(r"^%s='(.*)'$" % re.escape(argv[-1]), self.last_show, re.M)  # the last one counts
            return {"rc": 0, "stdout": hashlib.sha256(values[-1].encode()).hexdigest() + "  -\n", "stderr": ""} \
                if values else {"rc": 1, "stdout": "", "stderr": ""}
        cmd = SHOW.get(cmd, cmd)
        self.ran.append(cmd)
        self.stdin.append(in_data)
        answer = self.answers.get((cmd, in_data), self.answers.get(cmd, (0, "", "")))
        if isinstance(answer, list):  # successive answers: the target's state before and after a write
            answer = answer.pop(0) if len(answer) > 1 else answer[0]
        rc, stdout, stderr = answer
        if cmd.startswith("uci -q show "):
            self.last_show = stdout
            stdout = router_redact(stdout)
        return {"rc": rc, "stdout": stdout, "stderr": stderr}


def staged(answers, *lines):
    """Answers where `uci -q show network` shows the original, then the original plus lines (read-back)."""
    original = answers["uci -q show network"]
    updated = dict(answers)
    updated["uci -q show network"] = [original, (0, original[1] + "".join(l + "\n" for l in lines), "")]
    return updated


@pytest.fixture
def network(load_fixture):
    return {"uci -q show network": (0, load_fixture("uci_show", "case01_network.txt"), "")}


def test_changed_runs_set_then_commit(network):
    action = FakeUciAction({"config": "network", "section": "@wireguard_wg0[0]",
                            "option": "persistent_keepalive", "value": 5},
                           staged(network, "network.@wireguard_wg0[0].persistent_keepalive='5'"), diff=True)
    result = action.run(task_vars={})
    assert action.ran == ["uci -q show network", "uci changes network",
                          "uci set 'network.@wireguard_wg0[0].persistent_keepalive=5'", "uci -q show network",
                          "uci commit network"]
    assert result["changed"] is True and result["committed"] is True
    assert "persistent_keepalive='5'" in result["diff"]["after"]
    assert K not in repr(result)


def test_unchanged_runs_only_show(network):
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "listen_port", "value": "51820"}, network)
    result = action.run(task_vars={})
    assert action.ran == ["uci -q show network"]
    assert result["changed"] is False and "diff" not in result


def test_check_mode_runs_nothing_but_reports(network):
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "private_key", "value": "N" * 43 + "="},
                           network, check_mode=True, diff=True)
    result = action.run(task_vars={})
    assert action.ran == ["uci -q show network", "digest network.wg0.private_key", "uci changes network"]
    assert result["changed"] is True and result["committed"] is False
    assert result["commands"] == ["uci set network.wg0.private_key=<redacted>"]
    assert "N" * 43 not in repr(result) and K not in repr(result)


def test_commit_false_stages_only(network):
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "mtu", "value": "1420",
                            "commit": False}, staged(network, "network.wg0.mtu='1420'"))
    result = action.run(task_vars={})
    assert action.ran == ["uci -q show network", "uci set network.wg0.mtu=1420", "uci -q show network"]
    assert result["committed"] is False


@pytest.mark.parametrize("args, message", [
    ({"section": "wg0"}, "missing required arguments: config"),
    ({"config": "network", "section": "wg0", "state": "gone"}, "value of state must be one of: present, absent"),
    ({"config": "network", "section": "wg0", "list_mode": "add_list"}, "list_mode is add_list but all of the following"),
    ({"config": "network", "section": "wg0", "bogus": 1}, "bogus"),
    ({"config": "network", "section": "wg0", "option": "mtu", "value": True}, "value: booleans are ambiguous"),
    ({"config": "network", "section": "@wireguard_wg0[3]", "option": "mtu", "value": "1"},
     "section '@wireguard_wg0[3]' not found in network"),
])
def test_argument_errors_fail_without_running_changes(network, args, message):
    action = FakeUciAction(args, network)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert message in result["msg"]
    assert all(not cmd.startswith(("uci set", "uci delete", "uci commit")) for cmd in action.ran)


@pytest.mark.parametrize("args, message", [
    ({"config": "network;reboot", "section": "lan", "option": "proto", "value": "static"},
     "config must be [A-Za-z0-9_-]+, got 'network;reboot'"),
    ({"config": "network", "section": "lan lan", "option": "proto", "value": "static"},
     "section must be a section name ([A-Za-z0-9_]+) or @type[N], got 'lan lan'"),
    ({"config": "network", "section": "lan", "option": "pro.to", "value": "static"}, "option must be [A-Za-z0-9_]+, got 'pro.to'"),
])
def test_bad_names_fail_before_any_command(network, args, message):
    action = FakeUciAction(args, network)
    result = action.run(task_vars={})
    assert result["failed"] is True and message in result["msg"]
    assert action.ran == []


def test_missing_config_names_it():
    action = FakeUciAction({"config": "banip", "section": "global", "option": "ban_icmplimit", "value": "250"},
                           {"uci -q show banip": (1, "", "")})
    result = action.run(task_vars={})
    assert result["failed"] is True and result["rc"] == 1
    assert result["msg"] == ("config: 'banip' not found on the target (uci -q show banip gave rc=1: "
                             "no /etc/config/banip, or it does not parse)")


def test_secret_goes_on_stdin_of_uci_batch(network):
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "private_key", "value": "N" * 43 + "="},
                           staged(network, "network.wg0.private_key='%s'" % ("N" * 43 + "=")))
    result = action.run(task_vars={})
    assert action.ran == ["uci -q show network", "digest network.wg0.private_key", "uci changes network", "uci batch",
                          "uci -q show network", "digest network.wg0.private_key", "uci commit network"]
    assert action.stdin[2] == b"set 'network.wg0.private_key=%s'\n" % (b"N" * 43 + b"=")
    assert "N" * 43 not in " ".join(action.ran)
    assert result["commands"] == ["uci set network.wg0.private_key=<redacted>"]


def test_uci_batch_that_cannot_run_reports_cmd_rc_stderr_redacted(network):
    # uci batch exits 0 even when its line fails (the read-back catches that, below); a non-zero exit
    # means it did not run at all
    answers = dict(network)
    answers[("uci batch", b"set 'network.wg0.private_key=%s'\n" % (b"N" * 43 + b"="))] = (127, "", "sh: uci: not found\n")
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "private_key", "value": "N" * 43 + "="},
                           answers)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["cmd"] == "uci batch <<< set network.wg0.private_key=<redacted>"
    assert result["rc"] == 127 and result["stderr"] == "sh: uci: not found\n"
    assert "uci: not found" in result["msg"]
    assert "N" * 43 not in repr(result)
    assert "uci commit network" not in action.ran


@pytest.mark.parametrize("stderr_case", ["set_in_missing_section.txt", "invalid_option_name.txt"])
def test_failed_uci_batch_line_exits_0_and_is_caught_by_reading_back(network, load_fixture, stderr_case):
    """uci batch reports a failing line on stderr and exits 0: the value read back decides, and the
    failure names the option, the values (redacted) and what uci batch said."""
    said = load_fixture("uci_batch_stderr", stderr_case)
    answers = dict(network)
    answers[("uci batch", b"set 'network.wg0.private_key=%s'\n" % (b"N" * 43 + b"="))] = (0, "", said)
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "private_key", "value": "N" * 43 + "="},
                           answers)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"] == (
        "uci: network.wg0.private_key does not hold the new value after uci set network.wg0.private_key=<redacted>: "
        "network.wg0.private_key is <redacted>, wanted <redacted> (another value, not shown); uci batch said: %s; "
        "nothing was committed and the staged change was reverted (if the value is a secret it went on the stdin of "
        "'uci batch': use a connection that passes stdin, such as ssh)" % said.strip())
    assert action.ran[-1] == "uci revert network.wg0.private_key" and "uci commit network" not in action.ran
    assert "N" * 43 not in repr(result) and K not in repr(result)


def test_plain_value_that_did_not_take_fails_naming_option_and_value(network):
    action = FakeUciAction({"config": "network", "section": "@wireguard_wg0[0]", "option": "persistent_keepalive",
                            "value": 5}, network)       # the read-back still shows 25
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert ("uci: network.@wireguard_wg0[0].persistent_keepalive does not hold the new value after "
            "uci set network.@wireguard_wg0[0].persistent_keepalive=5: "
            "network.@wireguard_wg0[0].persistent_keepalive is '25', wanted '5'; nothing was committed") in result["msg"]
    assert action.ran[-1] == "uci revert 'network.@wireguard_wg0[0].persistent_keepalive'"


def test_section_gone_at_read_back_fails_and_reverts(network):
    original = network["uci -q show network"][1]
    gone = "".join(line for line in original.splitlines(keepends=True) if not line.startswith("network.wg0"))
    answers = dict(network)
    answers["uci -q show network"] = [network["uci -q show network"], (0, gone, "")]
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "mtu", "value": "1420"}, answers)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert "network.wg0.mtu does not hold the new value after uci set network.wg0.mtu=1420: section 'wg0' does not " \
           "exist in network" in result["msg"]
    assert action.ran[-1] == "uci revert network.wg0.mtu" and "uci commit network" not in action.ran


def test_unreadable_show_output_names_the_command():
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "mtu", "value": "1"},
                           {"uci -q show network": (0, "uci: Parse error\n", "")})
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"].startswith("cannot read the output of uci -q show network: line 1:")


ADMIN_CHANGES = "network.lan.ipaddr='192.168.10.2'\n-network.wan.metric\nnetwork.lan.ipaddr='192.168.10.3'\n"


@pytest.mark.parametrize("check_mode", [False, True])
def test_staged_changes_of_others_fail_naming_them_and_change_nothing(network, check_mode):
    answers = staged(network, "network.wg0.mtu='1420'")
    answers["uci changes network"] = (0, ADMIN_CHANGES, "")
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "mtu", "value": "1420"}, answers,
                           check_mode=check_mode)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"].startswith(
        "uci: network has 3 staged change(s) this task did not make: network.lan.ipaddr (set), "
        "network.wan.metric (delete) (values not shown). 'uci commit network' would commit them")
    assert "tunnelfix_uci_commit_staged: true" in result["msg"] and "192.168" not in result["msg"]
    assert action.ran == ["uci -q show network", "uci changes network"]


def test_staged_changes_are_committed_with_a_warning_when_asked(network):
    answers = staged(network, "network.wg0.mtu='1420'")
    answers["uci changes network"] = (0, ADMIN_CHANGES, "")
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "mtu", "value": "1420",
                            "commit_staged": True}, answers)
    warnings = []
    action._display = SimpleNamespace(warning=warnings.append)
    result = action.run(task_vars={})
    assert result["committed"] is True and action.ran[-1] == "uci commit network"
    assert warnings == ["uci: network had 3 staged change(s) before this task (network.lan.ipaddr (set), "
                        "network.wan.metric (delete)); commit_staged is set, so 'uci commit network' commits them too"]


def test_staged_changes_do_not_matter_when_nothing_changes_or_nothing_is_committed(network):
    answers = dict(network)
    answers["uci changes network"] = (0, ADMIN_CHANGES, "")
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "listen_port", "value": "51820"}, answers)
    assert action.run(task_vars={})["changed"] is False
    answers = staged(network, "network.wg0.mtu='1420'")
    answers["uci changes network"] = (0, ADMIN_CHANGES, "")
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "mtu", "value": "1420", "commit": False},
                           answers)
    assert action.run(task_vars={})["committed"] is False


def test_write_that_did_not_take_effect_fails_and_commits_nothing(network):
    # podman exec without -i drops the stdin of `uci batch`: the value never arrives.
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "private_key", "value": "N" * 43 + "="},
                           network)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert "does not hold the new value" in result["msg"] and "nothing was committed" in result["msg"]
    assert "uci commit network" not in action.ran
    # what this task staged is taken back, so a later task's commit of network cannot commit it
    assert action.ran[-1] == "uci revert network.wg0.private_key" and "staged change was reverted" in result["msg"]
    assert "N" * 43 not in repr(result)


def test_secret_already_set_is_unchanged_by_digest_and_never_read(network):
    """The router prints only a SHA-256 of the current key; equal to the wanted one's: nothing to do."""
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "private_key", "value": K}, network, diff=True)
    result = action.run(task_vars={})
    assert result["changed"] is False and result.get("failed") is not True
    assert action.ran == ["uci -q show network", "digest network.wg0.private_key"]
    assert K not in repr(result) and K not in " ".join(action.ran)


def test_secrets_of_other_options_never_reach_the_controller(network):
    """Setting a plain option in a section with a private key: the show output the action sees is redacted."""
    seen = []
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "mtu", "value": "1420"},
                           staged(network, "network.wg0.mtu='1420'"), check_mode=True, diff=True)
    original = action._low_level_execute_command

    def spy(cmd, **kwargs):
        res = original(cmd, **kwargs)
        seen.append(res["stdout"])
        return res
    action._low_level_execute_command = spy
    action.run(task_vars={})
    assert "private_key='<redacted>'" in "".join(seen) and K not in "".join(seen)


def test_a_key_under_an_innocent_option_is_handled_like_a_secret(network):
    """A key-shaped value (a preshared key pasted into a description) never goes on a command line or into
    the result: it is written with uci batch on stdin, shown <redacted>, and read back by digest."""
    key = "Q" * 20 + "r" * 23 + "="
    answers = staged(network, "network.wg0.description='psk %s'" % key)
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "description", "value": "psk " + key},
                           answers)
    result = action.run(task_vars={})
    assert result["changed"] is True and result["committed"] is True
    assert "uci batch" in action.ran and key not in repr(result) and key not in repr(action.ran)
    assert result["commands"] == ["uci set network.wg0.description=<redacted>"]


def test_a_command_that_fails_outright_reverts_the_section_this_task_created(network):
    """`uci set network.newpeer=wireguard_wg0` staged, then the option's set fails (rc 1): nothing may stay staged."""
    answers = dict(network)
    answers["uci set network.newpeer.description=dc"] = (1, "", "uci: I/O error\n")
    action = FakeUciAction({"config": "network", "section": "newpeer", "type": "wireguard_wg0", "option": "description",
                            "value": "dc"}, answers)
    result = action.run(task_vars={})
    assert result["failed"] is True and "I/O error" in result["stderr"]
    assert action.ran[-3:] == ["uci set network.newpeer=wireguard_wg0", "uci set network.newpeer.description=dc",
                               "uci revert network.newpeer"]
    assert "uci commit network" not in action.ran


def test_a_command_that_fails_outright_reverts_the_option_of_an_existing_section(network):
    answers = dict(network)
    answers["uci set network.wg0.mtu=1420"] = (1, "", "uci: Invalid argument\n")
    answers["uci revert network.wg0.mtu"] = (255, "", "uci: also broken\n")   # a failing revert hides nothing
    action = FakeUciAction({"config": "network", "section": "wg0", "option": "mtu", "value": "1420"}, answers)
    result = action.run(task_vars={})
    assert result["failed"] is True and "Invalid argument" in result["stderr"] and "also broken" not in repr(result)
    assert action.ran[-1] == "uci revert network.wg0.mtu" and "uci commit network" not in action.ran
