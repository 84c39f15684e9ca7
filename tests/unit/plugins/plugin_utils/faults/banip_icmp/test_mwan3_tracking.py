# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_mwan3_tracking and banip_settings on uci show output (case 05 and hand-written shapes)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.mwan3 import banip_settings, parse_mwan3_tracking

UNSET = {"enabled": None, "family": None, "track_method": None, "track_ip": [], "reliability": None, "count": None,
         "timeout_s": None, "interval_s": None, "failure_interval_s": None, "recovery_interval_s": None,
         "down": None, "up": None}
CASE05_WAN = {"enabled": True, "family": "ipv4", "track_method": "ping",
              "track_ip": ["1.0.0.1", "1.1.1.1", "208.67.222.222", "208.67.220.220"], "reliability": 2, "count": 2,
              "timeout_s": 1, "interval_s": 1, "failure_interval_s": None, "recovery_interval_s": None,
              "down": 3, "up": 3}


def test_parse_mwan3_tracking_case05(load_fixture):
    tracking = parse_mwan3_tracking(load_fixture("uci_show", "case05_mwan3_aggressive.txt"))
    assert list(tracking) == ["wan", "wanb"]
    assert tracking["wan"] == CASE05_WAN
    # wanb sets no track_method, down or up: mwan3's defaults apply, reported as unset
    assert tracking["wanb"] == dict(CASE05_WAN, track_method=None, down=None, up=None)


@pytest.mark.parametrize("text, expected", [
    ("", {}),
    # members, policies and rules are not interfaces
    ("mwan3.globals=globals\nmwan3.wan_m1_w3=member\nmwan3.wan_m1_w3.interface='wan'\n", {}),
    ("mwan3.wan=interface\n", {"wan": UNSET}),
    ("mwan3.wan=interface\nmwan3.wan.track_ip='9.9.9.9'\nmwan3.wan.failure_interval='5'\n"
     "mwan3.wan.recovery_interval='3'\nmwan3.wan.enabled='0'\n",
     {"wan": dict(UNSET, track_ip=["9.9.9.9"], failure_interval_s=5, recovery_interval_s=3, enabled=False)}),
])
def test_parse_mwan3_tracking_shapes(text, expected):
    assert parse_mwan3_tracking(text) == expected


@pytest.mark.parametrize("text, message", [
    ("mwan3.wan=interface\nmwan3.wan.count='two'\n", "mwan3.wan.count: expected a whole number >= 0, got 'two'"),
    ("mwan3.wanb=interface\nmwan3.wanb.interval='1' '2'\n", "mwan3.wanb.interval: .*got \\['1', '2'\\]"),
    ("mwan3.wan=interface\nmwan3.wan.enabled='maybe'\n", "mwan3.wan.enabled: expected a uci boolean"),
    ("Interface status:\n", "line 1: expected config.section"),
])
def test_parse_mwan3_tracking_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_mwan3_tracking(text)


CASE05_SETTINGS = {"ban_enabled": "1", "ban_autodetect": "1", "ban_feed": ["cinsscore", "firehol1"]}


@pytest.mark.parametrize("extra, default, expected", [
    # case 05: ban_icmplimit unset -> the installed version's default (10 before 1.5.3, 25 from it)
    ("", 25, {"enabled": True, "ban_icmplimit": None, "icmplimit_per_second": 25, "icmplimit_source": "default"}),
    ("", 10, {"enabled": True, "ban_icmplimit": None, "icmplimit_per_second": 10, "icmplimit_source": "default"}),
    ("", None, {"enabled": True, "ban_icmplimit": None, "icmplimit_per_second": None, "icmplimit_source": None}),
    ("banip.global.ban_icmplimit='250'\n", 25,
     {"enabled": True, "ban_icmplimit": "250", "icmplimit_per_second": 250, "icmplimit_source": "uci"}),
    ("banip.global.ban_icmplimit='0'\n", 10,  # 0: limiter off
     {"enabled": True, "ban_icmplimit": "0", "icmplimit_per_second": 0, "icmplimit_source": "uci"}),
])
def test_banip_settings_case05(load_fixture, extra, default, expected):
    result = banip_settings(load_fixture("uci_show", "case05_banip.txt") + extra, default)
    settings = dict(CASE05_SETTINGS, **({"ban_icmplimit": expected["ban_icmplimit"]} if extra else {}))
    assert result == dict(expected, settings=settings)


@pytest.mark.parametrize("text, expected", [
    ("", {"enabled": None, "ban_icmplimit": None, "icmplimit_per_second": 25, "icmplimit_source": "default",
          "settings": {}}),
    # an anonymous banip section, as a hand-made config may have; a secret is redacted. banIP reads
    # ban_enabled from the section named global only (uci_get banip global ban_enabled): its '0' here stops nothing
    ("banip.@banip[0]=banip\nbanip.@banip[0].ban_enabled='0'\nbanip.@banip[0].ban_icmplimit='100'\n"
     "banip.@banip[0].ban_mailpassword='hunter2'\n",
     {"enabled": True, "ban_icmplimit": "100", "icmplimit_per_second": 100, "icmplimit_source": "uci",
      "settings": {"ban_enabled": "0", "ban_icmplimit": "100", "ban_mailpassword": "<redacted>"}}),
])
def test_banip_settings_shapes(text, expected):
    assert banip_settings(text, 25) == expected


@pytest.mark.parametrize("text, message", [
    ("banip.global=banip\nbanip.global.ban_icmplimit='fast'\n",
     "banip.global.ban_icmplimit: expected a whole number >= 0, got 'fast'"),
    ("uci: Entry not found\n", "line 1"),
])
def test_banip_settings_errors(text, message):
    with pytest.raises(ParseError, match=message):
        banip_settings(text, 25)


@pytest.mark.parametrize("value, enabled", [
    # banIP (banip-functions.sh, every release) stops only at exactly '0'; every other value lets it run
    ("'0'", False),
    ("'0' '0'", True),  # a list: uci get prints '0 0', not '0'
    ("'1'", True), ("'on'", True), ("'off'", True), ("'no'", True), ("'false'", True), ("'disabled'", True),
    ("'2'", True), ("''", True), ("'0 '", True), (None, True),
])
def test_ban_enabled_is_read_as_banip_reads_it(value, enabled):
    text = "banip.global=banip\nbanip.global.ban_icmplimit='25'\n"
    if value is not None:
        text += "banip.global.ban_enabled=%s\n" % value
    assert banip_settings(text, 25)["enabled"] is enabled


def test_tracking_skips_sections_of_other_types_wherever_they_are():
    text = ("mwan3.globals=globals\nmwan3.globals.mmx_mask='0x3F00'\n"
            "mwan3.wan=interface\nmwan3.wan.enabled='1'\nmwan3.wan.count='2'\n"
            "mwan3.balanced=policy\n"
            "mwan3.wanb=interface\nmwan3.wanb.enabled='0'\n")
    tracking = parse_mwan3_tracking(text)
    assert list(tracking) == ["wan", "wanb"]
    assert (tracking["wan"]["enabled"], tracking["wan"]["count"], tracking["wanb"]["enabled"]) == (True, 2, False)
