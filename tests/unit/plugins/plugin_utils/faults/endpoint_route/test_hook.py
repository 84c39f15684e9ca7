# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""faults/endpoint_route/hook.py: openwrt_mwan3_wg's full-tunnel hook, its text (``hook_content``) and what ``HOOK_PROBE``
(``sha256sum`` of the hook and of the file an earlier version left) says of each file, on recorded output of BusyBox 1.35
(the OpenWrt-like 24.10 image) and GNU coreutils 9.1 (tests/unit/fixtures/README.md)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.hook import (
    HOOK_PATH, HOOK_PROBE, OLD_HOOK_PATH, _tabs, content_sha256, hook_content, hook_state, parse_hook_probe)

# the SHA-256 of the hook the role's template rendered for ONE_ENDPOINT (at 5e6c660), as sha256sum printed it on the router
RECORDED_SHA256 = "97029a11afe0d1e22a84f892289068096897cb9c43e9184496888a2dc4ed62ae"
OLD_SHA256 = "ebf90d5190daf293b3dcc7a4677ea5885fa8c2e930e8fe2d63375f23d5a6afb0"
THERE, ABSENT, UNKNOWN = {"exists": True, "sha256": RECORDED_SHA256}, {"exists": False, "sha256": None}, {"exists": None, "sha256": None}


@pytest.mark.parametrize("tool, rc", [("busybox_openwrt24.10", 1), ("gnu_debian12", 1)])
@pytest.mark.parametrize("case, hook, old", [
    ("none", ABSENT, ABSENT),
    ("hook_only", THERE, ABSENT),
    ("both", THERE, {"exists": True, "sha256": OLD_SHA256}),
])
def test_the_probe_reads_each_file_on_recorded_output(load_fixture, tool, rc, case, hook, old):
    rc = 0 if case == "both" else rc   # as recorded: 1 when a file is missing, on both tools
    name = "%s_%s.txt" % (tool, case)
    assert parse_hook_probe(rc, load_fixture("sha256sum_hotplug_hook", name), load_fixture("sha256sum_hotplug_hook_stderr", name)) == {
        HOOK_PATH: hook, OLD_HOOK_PATH: old}


LINE = "%s  %s\n" % (RECORDED_SHA256, HOOK_PATH)


@pytest.mark.parametrize("rc, stdout, stderr, hook, old", [
    # no sha256sum, or a shell that cannot run it: nothing is known, not even absence
    (127, "", "sh: sha256sum: not found\n", UNKNOWN, UNKNOWN),
    (126, "", "sh: sha256sum: Permission denied\n", UNKNOWN, UNKNOWN),
    (2, "", "sha256sum: %s: No such file or directory\n" % HOOK_PATH, UNKNOWN, UNKNOWN),
    # a file sha256sum cannot read is there, but its text unknown
    (1, "", "sha256sum: can't open '%s': Permission denied\nsha256sum: can't open '%s': No such file or directory\n"
     % (HOOK_PATH, OLD_HOOK_PATH), UNKNOWN, ABSENT),
    # rc 1 and nothing said of a file: unknown
    (1, LINE, "", THERE, UNKNOWN),
    (1, None, None, UNKNOWN, UNKNOWN),
    # the missing message of the other file says nothing of this one
    (1, "", "sha256sum: %s: No such file or directory\n" % OLD_HOOK_PATH, UNKNOWN, ABSENT),
    (1, "", "sha256sum: %s: Is a directory\n" % OLD_HOOK_PATH, UNKNOWN, UNKNOWN),
    # a digest line is a digest line: 64 lowercase hex digits, the path as given (GNU's binary mode: "*PATH")
    (0, "%s *%s\n%s  %s\n" % (RECORDED_SHA256, HOOK_PATH, OLD_SHA256, OLD_HOOK_PATH), "",
     THERE, {"exists": True, "sha256": OLD_SHA256}),
    (1, "%s  %s\n" % (RECORDED_SHA256[:63], HOOK_PATH), "sha256sum: %s: No such file or directory\n" % OLD_HOOK_PATH,
     UNKNOWN, ABSENT),
    (1, "%s  %s\n" % (RECORDED_SHA256.upper(), HOOK_PATH), "", UNKNOWN, UNKNOWN),
    (1, "%s  %s.bak\n" % (RECORDED_SHA256, HOOK_PATH), "", UNKNOWN, UNKNOWN),
    (1, " " + LINE, "", UNKNOWN, UNKNOWN),
])
def test_the_probe_says_present_absent_or_unknown(rc, stdout, stderr, hook, old):
    assert parse_hook_probe(rc, stdout, stderr) == {HOOK_PATH: hook, OLD_HOOK_PATH: old}


def test_a_file_read_and_said_missing_is_there():
    """Its digest line wins over a message naming it (nothing prints both; the digest is the stronger evidence)."""
    assert parse_hook_probe(1, LINE, "sha256sum: %s: No such file or directory\n" % HOOK_PATH)[HOOK_PATH] == THERE


class Batch:
    """An action whose batch answered the probe with ``result``; records what was asked."""

    def __init__(self, result):
        self.result, self.asked = result, []

    def step(self, argv, ok_rcs=(0,)):
        self.asked.append((argv, ok_rcs))
        return self.result


def test_hook_state_reads_the_probe_of_the_batch_accepting_every_exit_code(load_fixture):
    name = "busybox_openwrt24.10_hook_only.txt"
    action = Batch({"rc": 1, "stdout": load_fixture("sha256sum_hotplug_hook", name),
                    "stderr": load_fixture("sha256sum_hotplug_hook_stderr", name)})
    assert hook_state(action) == {HOOK_PATH: THERE, OLD_HOOK_PATH: ABSENT}
    [(argv, ok_rcs)] = action.asked
    assert argv == HOOK_PROBE == ["sha256sum", "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint",
                                  "/etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint"]
    assert 0 in ok_rcs and 1 in ok_rcs and 127 in ok_rcs and 255 in ok_rcs


# --- the hook's text ---
WAN = {"interface": "wan", "device": "eth1", "metered": False}
WANB = {"interface": "wanb", "device": "wwan0", "metered": True}
MODEM = {"interface": None, "device": "wwan1", "metered": False}
ONE_ENDPOINT = (["203.0.113.10"], ["wg0"], "eth1", [WAN, WANB], "wan")
VARIABLES = ("ENDPOINTS", "WIREGUARD_DEVICES", "PREFERRED_DEVICE", "UPLINKS", "UPLINK_DEVICES", "METERED_DEVICES")


def variables(text):
    """The hook's settings, ``NAME="VALUE"`` lines, in their order: ``[(NAME, VALUE)]``."""
    return [tuple(line.split("=", 1)) for line in text.splitlines() if line.split("=", 1)[0] in VARIABLES]


@pytest.mark.parametrize("inputs, expected", [
    (ONE_ENDPOINT, ['"203.0.113.10"', '"wg0"', '"eth1"', '"wan wanb"', '""', '"wwan0"']),
    # the endpoints in the plan's order, the WireGuard devices sorted; a modem no uci interface names: matched by device
    ((["203.0.113.10", "198.51.100.7"], ["wg1", "wg0"], "eth1", [WAN, WANB, MODEM], "wan"),
     ['"203.0.113.10 198.51.100.7"', '"wg0 wg1"', '"eth1"', '"wan wanb"', '"wwan1"', '"wwan0"']),
    # no preferred device known: empty; the preferred uplink's name counts even when no uplink has it; each name once
    ((["203.0.113.10"], ["wg0"], None, [WAN, dict(MODEM, metered=True), dict(MODEM, metered=True)], "lte"),
     ['"203.0.113.10"', '"wg0"', '""', '"wan lte"', '"wwan1"', '"wwan1"']),
    ((["192.0.2.99"], [], "", [WAN], "wan"), ['"192.0.2.99"', '""', '""', '"wan"', '""', '""']),
    # no uplink at all (the plan reads them whenever there is an endpoint): the option's name alone
    ((["192.0.2.99"], ["wg0"], "eth1", [], "wan"), ['"192.0.2.99"', '"wg0"', '"eth1"', '"wan"', '""', '""']),
])
def test_the_hook_names_what_the_plan_gives_it(inputs, expected):
    assert variables(hook_content(*inputs)) == list(zip(VARIABLES, expected))


def test_the_hook_text_is_the_one_routers_have():
    """The text for ONE_ENDPOINT has the digest sha256sum printed for the hook the role's template rendered before the
    text moved here (the recorded probe; the template was pinned byte for byte to hook_content for four routers at the
    commit that moved it): a router converged then keeps its hook, no rewrite on every router of the fleet."""
    assert content_sha256(hook_content(*ONE_ENDPOINT)) == RECORDED_SHA256


def test_the_hook_is_a_script_that_ends_with_a_newline_and_keeps_its_tabs():
    text = hook_content(*ONE_ENDPOINT)
    assert text.startswith("#!/bin/sh\n#\n# Ansible managed\n#\n# Full-tunnel endpoint hook (tunnelfix.fleet.openwrt_mwan3_wg)")
    assert text.endswith("\ndone\nexit 0\n") and "\n\tconnected|disconnected) ;;\n" in text and "\n\t\tfor (i = 1; i < NF; i++) {\n" in text
    assert "    " not in text.split("DOWN_DIR=", 1)[1]   # the script's indentation is tabs only


def test_content_sha256_is_what_sha256sum_prints():
    """What `sha256sum` prints for an empty file and for "café\\n" in UTF-8 (run on the dev host, GNU coreutils 9.1)."""
    assert content_sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert content_sha256("caf\u00e9\n") == "7b49b9e063bd91a4f9252b413261f5557b9c570aa61516989499f64a62dbcdd6"


def test_the_scripts_indentation_becomes_tabs():
    """Each leading 4 spaces of a line is a tab; spaces inside a line, and a leading rest of fewer than 4, stay."""
    assert _tabs("a\n    b  c\n        d\n      e\n  f\n") == "a\n\tb  c\n\t\td\n\t  e\n  f\n"
