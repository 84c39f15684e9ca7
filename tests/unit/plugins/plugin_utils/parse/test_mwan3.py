# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_mwan3_interfaces, parse_banip_version, banip_default_icmplimit."""

import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.mwan3 import (
    banip_default_icmplimit,
    parse_banip_version,
    parse_mwan3_interfaces,
)


def test_parse_mwan3_interfaces_case01(load_fixture):
    assert parse_mwan3_interfaces(load_fixture("mwan3_interfaces", "case01_both_online.txt")) == {
        "wan": {"status": "online", "tracking": "active", "online_s": 8049, "offline_s": None, "uptime_s": 8200},
        "wanb": {"status": "online", "tracking": "active", "online_s": 8395, "offline_s": None, "uptime_s": 8431},
    }


# Statuses and tracking states as mwan3.sh's mwan3_report_iface_status prints them (read in the
# openwrt/packages source, not recorded); the last two lines are assumed shapes: a newer mwan3's
# times after an offline interface, and an older one's line without tracking.
@pytest.mark.parametrize("line, expected", [
    (" interface wanb is offline and tracking is down",
     {"status": "offline", "tracking": "down", "online_s": None, "offline_s": None, "uptime_s": None}),
    (" interface wwan is disabled and tracking is not enabled",
     {"status": "disabled", "tracking": "not enabled", "online_s": None, "offline_s": None, "uptime_s": None}),
    (" interface wan6 is unknown and tracking is not enabled",
     {"status": "unknown", "tracking": "not enabled", "online_s": None, "offline_s": None, "uptime_s": None}),
    (" interface wan is error and tracking is active",
     {"status": "error", "tracking": "active", "online_s": None, "offline_s": None, "uptime_s": None}),
    (" interface wanb is offline and tracking is paused (offline 00h:00m:42s, uptime 01h:00m:00s)",
     {"status": "offline", "tracking": "paused", "online_s": None, "offline_s": 42, "uptime_s": 3600}),
    (" interface wan is online", {"status": "online", "tracking": None, "online_s": None, "offline_s": None,
                                  "uptime_s": None}),
])
def test_parse_mwan3_interfaces_statuses(line, expected):
    name = line.split()[1]
    assert parse_mwan3_interfaces("Interface status:\n%s\n\n" % line) == {name: expected}


def test_parse_mwan3_interfaces_unreadable_duration_is_unknown():
    text = " interface wan is online and tracking is active (online 02h:14m, uptime 00h:01m:05s)\n"
    assert parse_mwan3_interfaces(text)["wan"] == {"status": "online", "tracking": "active", "online_s": None,
                                                   "offline_s": None, "uptime_s": 65}


def test_parse_mwan3_interfaces_empty():
    assert parse_mwan3_interfaces("Interface status:\n") == {}


@pytest.mark.parametrize("text, message", [
    ("Interface status:\n interface wan is online and tracking is active\n\nCurrent ipv4 policies:\n",
     "line 4: expected 'interface NAME is STATUS"),
    (" interface wan is online\n interface wan is offline\n", "line 2: interface 'wan' listed twice"),
    (" interface wan is 42\n", "line 1: expected"),
    (["interface wan is online"], "must be text, got list"),
])
def test_parse_mwan3_interfaces_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_mwan3_interfaces(text)


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
