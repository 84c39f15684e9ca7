# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The openwrt_facts action against a fake router: which commands run, missing tools, failures.

The fake answers ``_low_level_execute_command`` from a table of command → (rc, stdout, stderr)
and records what ran; a command missing from the table fails the test, so every command the
action runs is listed here.
"""

from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.openwrt_facts import ActionModule

MISSING = (127, "", "")
NO_TABLE = (1, "", "Error: No such file or directory\nlist table inet banIP\n                 ^^^^^\n")


class FakeRouter(ActionModule):
    def __init__(self, args, answers, check_mode=False):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=False,
                               action="tunnelfix.fleet.openwrt_facts")
        connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.openwrt_facts"
        self.answers = answers
        self.ran = []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        self.ran.append(cmd)
        assert cmd in self.answers, "unexpected command %r" % cmd
        rc, stdout, stderr = self.answers[cmd]
        return {"rc": rc, "stdout": stdout, "stderr": stderr}


def facts_of(result):
    assert result.get("failed") is not True, result
    assert result["changed"] is False
    return result["ansible_facts"]["tunnelfix_openwrt"]


@pytest.fixture
def old_router(load_fixture):
    """banIP 1.0.1 from opkg, ban_icmplimit unset, nft with JSON, mwan3 with two WANs (cases 01, 05)."""
    return {
        "test -e /etc/init.d/banip": (0, "", ""),
        "command -v apk": MISSING,
        "command -v opkg": (0, "/bin/opkg\n", ""),
        "opkg list-installed banip": (0, load_fixture("banip_version", "case05_opkg_old.txt"), ""),
        "uci -q show banip": (0, load_fixture("uci_show", "case05_banip.txt"), ""),
        "command -v nft": (0, "/usr/sbin/nft\n", ""),
        # recorded from a banIP 1.0-shaped table named banIPold (the recording namespace held both)
        "nft -j list table inet banIP": (0, load_fixture("nft_j_list", "netns_banip_old_table.txt"), ""),
        "command -v mwan3": (0, "/usr/sbin/mwan3\n", ""),
        "mwan3 interfaces": (0, load_fixture("mwan3_interfaces", "case01_both_online.txt"), ""),
        "uci -q show mwan3": (0, load_fixture("uci_show", "case05_mwan3_aggressive.txt"), ""),
    }


@pytest.mark.parametrize("check_mode", [False, True])
def test_old_banip_and_mwan3(old_router, check_mode):
    action = FakeRouter({}, old_router, check_mode=check_mode)
    facts = facts_of(action.run(task_vars={}))
    assert facts["banip"] == {
        "installed": True, "version": "1.0.1-1", "upstream_version": "1.0.1", "icmplimit_default_per_second": 10,
        "enabled": True, "ban_icmplimit": None, "icmplimit_per_second": 10, "icmplimit_source": "default",
        "settings": {"ban_enabled": "1", "ban_autodetect": "1", "ban_feed": ["cinsscore", "firehol1"]},
        "nft_installed": True, "nft_table_loaded": True,
        "icmp_counter": {"name": "cnt-icmpflood", "packets": 27, "bytes": 2268},
        "icmp_limit_rule": {"rate_per_second": 10, "burst_packets": 5, "counter": "cnt-icmpflood", "rules": 2},
    }
    assert facts["mwan3"]["installed"] is True
    assert facts["mwan3"]["interfaces"]["wan"]["status"] == "online"
    assert facts["mwan3"]["tracking"]["wan"]["track_ip"] == ["1.0.0.1", "1.1.1.1", "208.67.222.222", "208.67.220.220"]
    assert facts["mwan3"]["tracking"]["wan"]["interval_s"] == 1
    assert action.ran == list(old_router)  # each command once, in this order


def test_new_banip_apk_and_nft_without_json(old_router, load_fixture):
    answers = dict(old_router)
    del answers["command -v opkg"], answers["opkg list-installed banip"]
    answers.update({
        "command -v apk": (0, "/usr/bin/apk\n", ""),
        "apk list --installed banip": (0, load_fixture("banip_version", "case05_apk_new.txt"), ""),
        "uci -q show banip": (0, load_fixture("uci_show", "case05_banip.txt") + "banip.global.ban_icmplimit='250'\n", ""),
        "nft -j list table inet banIP": (1, "", "Error: JSON support not compiled-in\n"),
        "nft list table inet banIP": (0, load_fixture("nft_list", "netns_icmplimit_250_burst10.txt"), ""),
    })
    facts = facts_of(FakeRouter({"gather_subset": ["banip"]}, answers).run(task_vars={}))
    banip = facts["banip"]
    assert list(facts) == ["banip"]
    assert (banip["version"], banip["icmplimit_default_per_second"]) == ("1.8.12-r1", 25)
    assert (banip["ban_icmplimit"], banip["icmplimit_per_second"], banip["icmplimit_source"]) == ("250", 250, "uci")
    assert banip["icmp_limit_rule"] == {"rate_per_second": 250, "burst_packets": 10, "counter": "cnt_icmpflood",
                                        "rules": 1}
    assert banip["icmp_counter"] is None  # a chain listing has no counter objects


NOTHING = {"test -e /etc/init.d/banip": (1, "", ""), "command -v mwan3": MISSING}


@pytest.mark.parametrize("answers, subset, expected_banip, expected_mwan3, ran", [
    # a router with neither: two probes, nothing else, no failure
    (NOTHING, ["all"], {"installed": False, "settings": {}}, {"installed": False, "interfaces": {}, "tracking": {}},
     ["test -e /etc/init.d/banip", "command -v mwan3"]),
    # banIP without a package manager or nft: version and default unknown, the uci value still read
    ({"test -e /etc/init.d/banip": (0, "", ""), "command -v apk": MISSING, "command -v opkg": (1, "", ""),
      "uci -q show banip": (0, "banip.global=banip\nbanip.global.ban_icmplimit='250'\n", ""),
      "command -v nft": MISSING},
     ["!mwan3"], {"installed": True, "version": None, "icmplimit_default_per_second": None,
                  "icmplimit_per_second": 250, "icmplimit_source": "uci", "nft_installed": False,
                  "nft_table_loaded": None, "icmp_counter": None},
     None, ["test -e /etc/init.d/banip", "command -v apk", "command -v opkg", "uci -q show banip", "command -v nft"]),
    # banIP installed, not started (no nft table), no /etc/config/banip, opkg does not list it
    ({"test -e /etc/init.d/banip": (0, "", ""), "command -v apk": MISSING, "command -v opkg": (0, "/bin/opkg\n", ""),
      "opkg list-installed banip": (0, "", ""), "uci -q show banip": (1, "", ""),
      "command -v nft": (0, "/usr/sbin/nft\n", ""), "nft -j list table inet banIP": NO_TABLE},
     ["banip"], {"installed": True, "version": None, "enabled": None, "icmplimit_per_second": None,
                 "icmplimit_source": None, "settings": {}, "nft_installed": True, "nft_table_loaded": False,
                 "icmp_counter": None, "icmp_limit_rule": None},
     None, None),
    # mwan3 installed but no mwan3 config
    ({"command -v mwan3": (0, "/usr/sbin/mwan3\n", ""), "mwan3 interfaces": (0, "Interface status:\n", ""),
      "uci -q show mwan3": (1, "", "")},
     ["mwan3"], None, {"installed": True, "interfaces": {}, "tracking": {}}, None),
])
def test_missing_tools_are_reported_not_failed(answers, subset, expected_banip, expected_mwan3, ran):
    action = FakeRouter({"gather_subset": subset}, answers)
    facts = facts_of(action.run(task_vars={}))
    if expected_banip is None:
        assert "banip" not in facts
    else:
        assert {key: facts["banip"][key] for key in expected_banip} == expected_banip
    if expected_mwan3 is None:
        assert "mwan3" not in facts
    else:
        assert facts["mwan3"] == expected_mwan3
    if ran is not None:
        assert action.ran == ran


def test_banip_not_installed_has_every_key_null():
    facts = facts_of(FakeRouter({"gather_subset": ["banip"]}, NOTHING).run(task_vars={}))
    assert facts["banip"].pop("installed") is False and facts["banip"].pop("settings") == {}
    assert set(facts["banip"].values()) == {None}


@pytest.mark.parametrize("change, args, message, extra", [
    ({"mwan3 interfaces": (1, "", "mwan3: not running\n")}, {},
     "mwan3 interfaces failed with rc=1: mwan3: not running", {"cmd": "mwan3 interfaces", "rc": 1}),
    ({"nft -j list table inet banIP": (2, "", "Error: Could not process rule: Operation not permitted\n")}, {},
     "nft -j list table inet banIP failed with rc=2: Error: Could not process rule",
     {"cmd": "nft -j list table inet banIP", "rc": 2}),
    ({"nft -j list table inet banIP": (1, "", "Operation not permitted (you must be root)\n"
                                              "netlink: Error: cache initialization failed: Operation not permitted\n")},
     {}, "nft -j list table inet banIP failed with rc=1: Operation not permitted (you must be root)",
     {"cmd": "nft -j list table inet banIP", "rc": 1}),
    ({"command -v mwan3": (2, "", "sh: syntax error\n")}, {}, "command -v mwan3 failed with rc=2: sh: syntax error",
     {"cmd": "command -v mwan3", "rc": 2}),
    ({"nft -j list table inet banIP": (0, "{not json", "")}, {},
     "cannot read the output of nft -j list table inet banIP: nft -j output is not JSON",
     {"cmd": "nft -j list table inet banIP", "rc": 0}),
    ({"uci -q show banip": (0, "banip.global=banip\nbanip.global.ban_icmplimit='fast'\n", "")}, {},
     "cannot read the output of uci -q show banip: banip.global.ban_icmplimit: expected a whole number", {}),
    ({"opkg list-installed banip": (0, "banip - v1\n", "")}, {},
     "cannot read the output of opkg list-installed banip: banIP version line 1", {}),
    ({}, {"gather_subset": ["wireguard"]}, "gather_subset: unknown subset 'wireguard'; choose from all, banip, mwan3", {}),
    ({}, {"gather": ["all"]}, "gather", {}),
])
def test_failures_name_the_command(old_router, change, args, message, extra):
    answers = dict(old_router, **change)
    result = FakeRouter(args, answers).run(task_vars={})
    assert result["failed"] is True
    assert message in result["msg"]
    assert {key: result[key] for key in extra} == extra
    assert "ansible_facts" not in result
