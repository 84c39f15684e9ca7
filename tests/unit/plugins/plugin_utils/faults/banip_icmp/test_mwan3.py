# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_mwan3_interfaces (on every release's recorded output), parse_banip_version, banip_default_icmplimit."""

import re
from pathlib import Path

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.mwan3 import (
    banip_default_icmplimit,
    mwan3_missing,
    parse_banip_version,
    parse_mwan3_interfaces,
)


FIXTURES = Path(__file__).resolve().parents[4] / "fixtures"


def iface(**changes):
    """One interface's parsed status: nothing printed but what ``changes`` give."""
    return dict({"format": None, "status": None, "tracking": None, "hotplug_state": None, "online_s": None,
                 "offline_s": None, "uptime_s": None, "error_code": None, "missing": []}, **changes)


OLD, NEW = {"format": "23.05"}, {"format": "24.10+"}
# the router states recorded with each release's own mwan3 (fixtures/README.md): online 02h:14m:09s = 8049 s,
# netifd uptime 02h:16m:40s = 8200 s
TIMES = {"online_s": 8049, "uptime_s": 8200}
ALL_MISSING = ["ip_rule_iif", "ip_rule_fwmark", "ip_rule_unreachable", "iptables_iface_in_chain", "table_default_route"]
OLD_STATES = {
    "online": iface(status="online", tracking="active", hotplug_state="online", error_code=0, **dict(OLD, **TIMES)),
    # mwan3 has not applied mwan3track's online event: the word is mwan3's routing state, the time the ONLINE time
    "online_hotplug_offline": iface(status="offline", tracking="active", hotplug_state="offline", error_code=0,
                                    **dict(OLD, **TIMES)),
    # mwan3track took it offline: the routing state says offline, the online time is 0
    "offline": iface(status="offline", tracking="active", hotplug_state="offline", error_code=0, online_s=0,
                     uptime_s=8200, **OLD),
    "connecting": iface(status="offline", tracking="active", hotplug_state="offline", error_code=0, online_s=0,
                        uptime_s=8200, **OLD),
    "disconnecting": iface(status="online", tracking="active", hotplug_state="online", error_code=0, **dict(OLD, **TIMES)),
    "error_4": iface(status="error", tracking="active", error_code=4, missing=["ip_rule_unreachable"], **OLD),
    "error_24": iface(status="error", tracking="active", error_code=24,
                      missing=["iptables_iface_in_chain", "table_default_route"], **OLD),
    # no device: mwan3 checks nothing; the line fits both formats
    "ifdown": iface(status="offline", tracking="paused"),
    "disabled": iface(status="disabled", tracking="down"),
    "no_track_ip": iface(status="online", tracking="not enabled", hotplug_state="online", error_code=0, online_s=0,
                         uptime_s=8200, **OLD),
    "tracker_down": iface(status="online", tracking="down", hotplug_state="online", error_code=0, **dict(OLD, **TIMES)),
}
NEW_STATES = {
    "online": iface(status="online", tracking="active", hotplug_state="online", **dict(NEW, **TIMES)),
    # issue 28 item 5: "(offline ...)" after an online status is mwan3's routing state and the ONLINE time
    "online_hotplug_offline": iface(status="online", tracking="active", hotplug_state="offline", **dict(NEW, **TIMES)),
    "offline": iface(status="offline", tracking="active"),          # 24.10+: every rule in place, but 23.05 prints it too
    "connecting": iface(status="connecting", tracking="active", error_code=0, **NEW),
    "disconnecting": iface(status="disconnecting", tracking="active", error_code=0, **NEW),
    "error_4": iface(status="offline", tracking="active", error_code=4, missing=["ip_rule_unreachable"], **NEW),
    "error_24": iface(status="offline", tracking="active", error_code=24,
                      missing=["iptables_iface_in_chain", "table_default_route"], **NEW),
    "ifdown": iface(status="disabled", tracking="paused", error_code=31, missing=ALL_MISSING, **NEW),
    "disabled": iface(status="unknown", tracking="down", error_code=31, missing=ALL_MISSING, **NEW),
    "no_track_ip": iface(status="unknown", tracking="disabled", error_code=0, **NEW),
    "tracker_down": iface(status="online", tracking="down", hotplug_state="online", **dict(NEW, **TIMES)),
}
RECORDED = [("23.05", state, expected) for state, expected in OLD_STATES.items()] + [
    (release, state, expected) for release in ("24.10", "25.12", "master") for state, expected in NEW_STATES.items()]


@pytest.mark.parametrize("release, state, expected", RECORDED, ids=["%s_%s" % case[:2] for case in RECORDED])
def test_parse_mwan3_interfaces_recorded(load_fixture, release, state, expected):
    assert parse_mwan3_interfaces(load_fixture("mwan3_interfaces", "%s_%s.txt" % (release, state))) == {"wan": expected}


def test_every_recorded_fixture_is_in_the_table():
    recorded = {path.name for path in (FIXTURES / "mwan3_interfaces").glob("*.txt") if not path.name.startswith("case")}
    assert recorded == {"%s_%s.txt" % case[:2] for case in RECORDED}


def test_parse_mwan3_interfaces_case01(load_fixture):
    assert parse_mwan3_interfaces(load_fixture("mwan3_interfaces", "case01_both_online.txt")) == {
        "wan": iface(status="online", tracking="active", hotplug_state="online", online_s=8049, uptime_s=8200, **NEW),
        "wanb": iface(status="online", tracking="active", hotplug_state="online", online_s=8395, uptime_s=8431, **NEW),
    }


# Lines in shapes read in mwan3_report_iface_status (openwrt/packages net/mwan3/files/lib/mwan3/mwan3.sh) but not
# in a fixture: more interfaces, long uptimes, the error numbers' edges, every tracking word.
@pytest.mark.parametrize("line, expected", [
    (" interface wanb is offline 00h:00m:00s, uptime 123h:00m:05s and tracking is paused",
     iface(status="offline", tracking="paused", hotplug_state="offline", online_s=0, uptime_s=442805, error_code=0, **OLD)),
    (" interface wan is error (1) and tracking is not enabled",
     iface(status="error", tracking="not enabled", error_code=1, missing=["ip_rule_iif"], **OLD)),
    (" interface wan is error (30) and tracking is down",
     iface(status="error", tracking="down", error_code=30, missing=ALL_MISSING[1:], **OLD)),
    # "not enabled" is 23.05's word, "disabled" 24.10's: they tell the format apart
    (" interface wan is disabled and tracking is not enabled",
     iface(status="disabled", tracking="not enabled", error_code=31, **dict(OLD, missing=ALL_MISSING))),
    (" interface wan is offline and tracking is not enabled", iface(status="offline", tracking="not enabled", **OLD)),
    (" interface wan is offline and tracking is disabled", iface(status="offline", tracking="disabled", error_code=0, **NEW)),
    (" interface wan6 is disconnecting and tracking is paused (16)",
     iface(status="disconnecting", tracking="paused", error_code=16, missing=["table_default_route"], **NEW)),
    (" interface wan is online and tracking is disabled (online 00h:00m:00s, uptime 00h:00m:07s)",
     iface(status="online", tracking="disabled", hotplug_state="online", online_s=0, uptime_s=7, **NEW)),
])
def test_parse_mwan3_interfaces_shapes(line, expected):
    name = line.split()[1]
    assert parse_mwan3_interfaces("Interface status:\n%s\n\n" % line) == {name: expected}


def test_parse_mwan3_interfaces_in_print_order():
    text = ("Interface status:\n interface wan is online 02h:14m:09s, uptime 02h:16m:40s and tracking is active\n"
            " interface wanb is error (4) and tracking is active\n interface wwan is disabled and tracking is not enabled\n\n")
    assert list(parse_mwan3_interfaces(text)) == ["wan", "wanb", "wwan"]


def test_mwan3_missing():
    assert mwan3_missing(None) == [] and mwan3_missing(0) == []
    assert mwan3_missing(20) == ["ip_rule_unreachable", "table_default_route"]
    assert mwan3_missing(31) == ALL_MISSING


def test_parse_mwan3_interfaces_empty():
    assert parse_mwan3_interfaces("Interface status:\n") == {}


@pytest.mark.parametrize("text, message", [
    ("Interface status:\n interface wan is connecting and tracking is active\n\nCurrent ipv4 policies:\n",
     "line 4: expected 'interface NAME is STATUS"),
    (" interface wan is offline and tracking is active\n interface wan is connecting and tracking is active\n",
     "line 2: interface 'wan' listed twice"),
    (" interface wan is 42\n", "line 1: expected"),
    # shapes no release prints: a time after a status other than online (no release stores offline time there),
    # a number after online, a bare online, error without its number, numbers outside 1-31
    (" interface wanb is offline and tracking is paused (offline 00h:00m:42s, uptime 01h:00m:00s)\n", "line 1: expected"),
    (" interface wan is online and tracking is active (4)\n", "line 1: expected"),
    (" interface wan is online and tracking is active\n", "line 1: expected"),
    (" interface wan is online\n", "line 1: expected"),
    (" interface wan is error and tracking is active\n", "line 1: expected"),
    (" interface wan is error (31) and tracking is active\n", "line 1: expected"),
    (" interface wan is error (0) and tracking is active\n", "line 1: expected"),
    (" interface wan is offline and tracking is active (32)\n", "line 1: expected"),
    (" interface wan is offline and tracking is active (0)\n", "line 1: expected"),
    # words no release prints, or from the other format
    (" interface wan is connecting and tracking is not enabled\n", "line 1: expected"),
    (" interface wan is online and tracking is not enabled (online 00h:00m:01s, uptime 00h:00m:01s)\n", "line 1: expected"),
    (" interface wan is error (4) and tracking is disabled\n", "line 1: expected"),
    (" interface wan is standby and tracking is active\n", "line 1: expected"),
    (" interface wan is offline and tracking is sleeping\n", "line 1: expected"),
    (" interface wan is connecting 02h:14m:09s, uptime 02h:16m:40s and tracking is active\n", "line 1: expected"),
    (" interface wan is online and tracking is active (connecting 02h:14m:09s, uptime 02h:16m:40s)\n", "line 1: expected"),
    # unreadable times
    (" interface wan is online and tracking is active (online 02h:14m, uptime 00h:01m:05s)\n", "line 1: expected"),
    (" interface wan is online -1h:59m:59s, uptime 00h:01m:05s and tracking is active\n", "line 1: expected"),
    (["interface wan is online"], "must be text, got list"),
])
def test_parse_mwan3_interfaces_errors(text, message):
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_mwan3_interfaces(text)


def test_the_error_names_the_line():
    with pytest.raises(ParseError) as err:
        parse_mwan3_interfaces("Interface status:\n interface wan is online and tracking is active (4)\n")
    assert "line 2" in str(err.value) and "interface wan is online and tracking is active (4)" in str(err.value)


VERSION_CASES = [
    # (fixture or text, expected version, expected default ICMP limit)
    (("banip_version", "case05_opkg_old.txt"), {"version": "1.0.1-1", "upstream_version": "1.0.1",
                                                "version_parts": [1, 0, 1]}, 10),
    (("banip_version", "case05_apk_new.txt"), {"version": "1.8.12-r1", "upstream_version": "1.8.12",
                                               "version_parts": [1, 8, 12]}, 25),
    # boundaries from banIP's history (limiter in 0.9.5 with 10; 25 from 1.5.3)
    ("1.5.3-r1", {"version": "1.5.3-r1", "upstream_version": "1.5.3", "version_parts": [1, 5, 3]}, 25),
    ("banip - 1.5.2-1", {"version": "1.5.2-1", "upstream_version": "1.5.2", "version_parts": [1, 5, 2]}, 10),
    ("banip - 0.9.5-1", {"version": "0.9.5-1", "upstream_version": "0.9.5", "version_parts": [0, 9, 5]}, 10),
    ("banip - 0.9.4-2", {"version": "0.9.4-2", "upstream_version": "0.9.4", "version_parts": [0, 9, 4]}, 0),
    ("1.10", {"version": "1.10", "upstream_version": "1.10", "version_parts": [1, 10]}, 25),
    # a grep over opkg/apk output also finds LuCI's package: skipped
    ("luci-app-banip - 26.001.12345~abcdef\nbanip - 1.0.1-1\n",
     {"version": "1.0.1-1", "upstream_version": "1.0.1", "version_parts": [1, 0, 1]}, 10),
    ("luci-app-banip-26.1.2-r1 noarch {feeds/luci/applications/luci-app-banip} (Apache-2.0) [installed]\n"
     "banip-1.8.12-r1 noarch {feeds/packages/net/banip} (GPL-3.0-or-later) [installed]\n",
     {"version": "1.8.12-r1", "upstream_version": "1.8.12", "version_parts": [1, 8, 12]}, 25),
    # not installed: opkg and apk print nothing
    ("", None, None),
    ("luci-app-banip - 26.001.12345~abcdef\n", None, None),
]


@pytest.mark.parametrize("source, expected, limit", VERSION_CASES)
def test_banip_version_and_default(load_fixture, source, expected, limit):
    text = load_fixture(*source) if isinstance(source, tuple) else source
    assert parse_banip_version(text) == expected
    assert banip_default_icmplimit(text) == limit


@pytest.mark.parametrize("text, message", [
    ("Package banip (1.0.1-1) installed in root is up to date.\n", "line 1: expected 'banip - VERSION'"),
    ("\nbanip - v1.0\n", "line 2: 'v1.0' is not a banIP version"),
    ("1.8.x\n", "line 1: '1.8.x' is not a banIP version"),
    (None, "must be text, got NoneType"),
])
def test_banip_version_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_banip_version(text)
    with pytest.raises(ParseError, match=message):
        banip_default_icmplimit(text)


@pytest.mark.parametrize("function", [parse_banip_version, parse_mwan3_interfaces])
def test_non_text_is_refused_naming_its_type(function):
    with pytest.raises(ParseError) as err:
        function(b"banip - 1.0.1-1\n")
    assert re.search(r"(?<!\w)bytes(?!\w)", str(err.value))


def test_apk_package_name_with_dashes_is_not_banip():
    text = "luci-app-banip-1.8.12-r1 noarch {feeds/luci/applications/luci-app-banip} (Apache-2.0) [installed]\n"
    assert parse_banip_version(text) is None
