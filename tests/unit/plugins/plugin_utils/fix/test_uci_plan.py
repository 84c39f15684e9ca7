# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plan_uci_change and normalize_uci_value: which uci commands a wanted value needs."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.uci_plan import (
    REDACTED_CHANGED,
    check_uci_params,
    normalize_uci_value,
    plan_uci_change,
    readback_mismatch,
)

K = "K" * 43 + "="
P = "P" * 43 + "="


def _plan(load_fixture, case, **params):
    return plan_uci_change(parse_uci_show(load_fixture("uci_show", case), keep_secrets=True), params)


# (fixture, params, expected commands); an empty list means unchanged
PLAN_CASES = [
    # set a new option on a named section
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "nohostroute", "value": "1"},
     [["uci", "set", "network.wg0.nohostroute=1"]]),
    # same value → unchanged; integers compare as strings
    ("case04_network.txt", {"config": "network", "section": "wg0", "option": "nohostroute", "value": 1}, []),
    # anonymous section by @type[N], existing value changed
    ("case01_network.txt", {"config": "network", "section": "@wireguard_wg0[0]", "option": "persistent_keepalive",
                            "value": "5"},
     [["uci", "set", "network.@wireguard_wg0[0].persistent_keepalive=5"]]),
    ("case01_network.txt", {"config": "network", "section": "@wireguard_wg0[-1]", "option": "persistent_keepalive",
                            "value": 25}, []),
    # uci -X names: the command uses the cfgXXXXXX name
    ("x_flag_cfg_names.txt", {"config": "network", "section": "@wireguard_wg0[1]", "option": "persistent_keepalive",
                              "value": "25"},
     [["uci", "set", "network.cfg0b96ba.persistent_keepalive=25"]]),
    # a named section counts as @type[N]: case 11's dc is @wireguard_wg0[1]
    ("case11_network_wg.txt", {"config": "network", "section": "@wireguard_wg0[1]", "option": "persistent_keepalive",
                               "value": "25"},
     [["uci", "set", "network.dc.persistent_keepalive=25"]]),
    # delete: present, absent option, absent section, whole section
    ("case04_network.txt", {"config": "network", "section": "wg0", "option": "nohostroute", "state": "absent"},
     [["uci", "delete", "network.wg0.nohostroute"]]),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "nohostroute", "state": "absent"}, []),
    ("case01_network.txt", {"config": "network", "section": "wg9", "option": "mtu", "state": "absent"}, []),
    ("case01_network.txt", {"config": "network", "section": "@route[0]", "state": "absent"}, []),
    ("x_flag_cfg_names.txt", {"config": "network", "section": "ep_backup", "state": "absent"},
     [["uci", "delete", "network.ep_backup"]]),
    # lists: replace with the same list → unchanged; a one-item list equals the same string
    ("case01_network.txt", {"config": "network", "section": "@wireguard_wg0[0]", "option": "allowed_ips",
                            "value": ["10.77.0.0/24", "192.168.20.0/24"]}, []),
    ("case11_network_wg.txt", {"config": "network", "section": "dc", "option": "allowed_ips",
                               "value": ["10.30.0.3/32"]}, []),
    ("case11_network_wg.txt", {"config": "network", "section": "dc", "option": "allowed_ips",
                               "value": ["10.30.0.3/32", "10.30.3.0/24"]},
     [["uci", "delete", "network.dc.allowed_ips"],
      ["uci", "add_list", "network.dc.allowed_ips=10.30.0.3/32"],
      ["uci", "add_list", "network.dc.allowed_ips=10.30.3.0/24"]]),
    ("case11_network_wg.txt", {"config": "network", "section": "dc", "option": "dns", "value": ["1.1.1.1"]},
     [["uci", "add_list", "network.dc.dns=1.1.1.1"]]),
    # add_list: existing item → unchanged; only missing items added
    ("case05_mwan3_aggressive.txt", {"config": "mwan3", "section": "wan", "option": "track_ip", "value": "1.1.1.1",
                                     "list_mode": "add_list"}, []),
    ("case05_mwan3_aggressive.txt", {"config": "mwan3", "section": "wan", "option": "track_ip",
                                     "value": ["1.1.1.1", "9.9.9.9", "9.9.9.9"], "list_mode": "add_list"},
     [["uci", "add_list", "mwan3.wan.track_ip=9.9.9.9"]]),
    # del_list: absent item → unchanged; present ones removed; the last one deletes the option
    ("case05_mwan3_aggressive.txt", {"config": "mwan3", "section": "wan", "option": "track_ip", "value": "9.9.9.9",
                                     "list_mode": "del_list"}, []),
    ("case05_mwan3_aggressive.txt", {"config": "mwan3", "section": "wan", "option": "track_ip",
                                     "value": ["208.67.222.222", "208.67.220.220"], "list_mode": "del_list"},
     [["uci", "del_list", "mwan3.wan.track_ip=208.67.222.222"],
      ["uci", "del_list", "mwan3.wan.track_ip=208.67.220.220"]]),
    ("case11_network_wg.txt", {"config": "network", "section": "dc", "option": "allowed_ips",
                               "value": "10.30.0.3/32", "list_mode": "del_list"},
     [["uci", "delete", "network.dc.allowed_ips"]]),
    # a missing named section is created with its type; an existing one of that type is fine
    ("case05_banip.txt", {"config": "banip", "section": "global", "type": "banip", "option": "ban_icmplimit",
                          "value": 250},
     [["uci", "set", "banip.global.ban_icmplimit=250"]]),
    ("case01_network.txt", {"config": "network", "section": "ep_main", "type": "route", "option": "target",
                            "value": "203.0.113.10/32"},
     [["uci", "set", "network.ep_main=route"], ["uci", "set", "network.ep_main.target=203.0.113.10/32"]]),
    ("case01_network.txt", {"config": "network", "section": "ep_main", "type": "route"},
     [["uci", "set", "network.ep_main=route"]]),
    # empty config (uci show printed nothing)
    ("empty_config.txt", {"config": "banip", "section": "global", "type": "banip", "option": "ban_enabled",
                          "value": "1"},
     [["uci", "set", "banip.global=banip"], ["uci", "set", "banip.global.ban_enabled=1"]]),
    # values with quotes and spaces are one argv word each
    ("firewall_named_anonymous_quoting.txt", {"config": "firewall", "section": "@rule[1]", "option": "name",
                                              "value": "WireGuard from the 'outside'"}, []),
    ("firewall_named_anonymous_quoting.txt", {"config": "firewall", "section": "wg_in", "option": "name",
                                              "value": "it's $(reboot)"},
     [["uci", "set", "firewall.wg_in.name=it's $(reboot)"]]),
]


@pytest.mark.parametrize("case, params, commands", PLAN_CASES)
def test_plan_uci_change_commands(load_fixture, case, params, commands):
    plan = _plan(load_fixture, case, **params)
    assert plan["commands"] == commands
    assert plan["changed"] is bool(commands)
    if not commands:
        assert plan["before"] == plan["after"]
        assert plan["diff"]["before"] == plan["diff"]["after"]


def test_plan_before_after_of_the_section(load_fixture):
    plan = _plan(load_fixture, "case01_network.txt", config="network", section="@wireguard_wg0[0]",
                 option="persistent_keepalive", value="5")
    assert plan["section"] == "@wireguard_wg0[0]"
    assert plan["before"]["options"]["persistent_keepalive"] == "25"
    assert plan["after"]["options"]["persistent_keepalive"] == "5"
    assert {k: v for k, v in plan["after"]["options"].items() if k != "persistent_keepalive"} == \
        {k: v for k, v in plan["before"]["options"].items() if k != "persistent_keepalive"}
    assert "network.@wireguard_wg0[0].persistent_keepalive='25'" in plan["diff"]["before"]
    assert "network.@wireguard_wg0[0].persistent_keepalive='5'" in plan["diff"]["after"]
    # the lines are those of `uci show network`; `uci show network.@wireguard_wg0[0]` names the section cfgXXXXXX
    assert plan["diff"]["before_header"] == "uci show network, section @wireguard_wg0[0]"


def test_plan_deleting_a_section_shows_it_gone(load_fixture):
    plan = _plan(load_fixture, "x_flag_cfg_names.txt", config="network", section="ep_backup", state="absent")
    assert plan["after"] is None and plan["diff"]["after"] == ""
    assert "network.ep_backup.gateway='100.64.0.1'" in plan["diff"]["before"]


@pytest.mark.parametrize("case, params", [
    # the section holds the private key; changing another option must not show it
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "nohostroute", "value": "1"}),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "private_key", "value": "N" * 43 + "="}),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "private_key", "state": "absent"}),
    ("case11_network_wg.txt", {"config": "network", "section": "@wireguard_wg0[1]", "option": "preshared_key",
                               "value": "Q" * 43 + "="}),
    ("case11_network_wg.txt", {"config": "network", "section": "dc", "state": "absent"}),
])
def test_plan_never_shows_secrets(load_fixture, case, params):
    plan = _plan(load_fixture, case, **params)
    shown = repr({k: v for k, v in plan.items() if k != "commands"})
    for secret in (K, P, "N" * 43 + "=", "Q" * 43 + "="):
        assert secret not in shown
    assert plan["changed"] is True


def test_plan_marks_a_changed_secret(load_fixture):
    plan = _plan(load_fixture, "case11_network_wg.txt", config="network", section="dc", option="preshared_key",
                 value="Q" * 43 + "=")
    assert plan["commands"] == [["uci", "set", "network.dc.preshared_key=" + "Q" * 43 + "="]]
    assert plan["commands_redacted"] == [["uci", "set", "network.dc.preshared_key=<redacted>"]]
    assert plan["after"]["options"]["preshared_key"] == REDACTED_CHANGED
    assert "network.dc.preshared_key='<redacted, changed>'" in plan["diff"]["after"]


def test_plan_same_secret_is_unchanged(load_fixture):
    plan = _plan(load_fixture, "case11_network_wg.txt", config="network", section="dc", option="preshared_key", value=P)
    assert plan["changed"] is False
    assert P not in repr(plan)


@pytest.mark.parametrize("case, params, message", [
    ("case01_network.txt", {"config": "network", "section": "@wireguard_wg0[1]", "option": "persistent_keepalive",
                            "value": "25"},
     "section: section '@wireguard_wg0[1]' not found in network: it has 1 section(s) of type wireguard_wg0"),
    ("case01_network.txt", {"config": "network", "section": "wg9", "option": "mtu", "value": "1420"},
     "section 'wg9' does not exist in network; give type to create it"),
    ("case01_network.txt", {"config": "network", "section": "wg 0", "option": "mtu", "value": "1420"},
     "section must be a section name ([A-Za-z0-9_]+) or @type[N], got 'wg 0'"),
    ("case01_network.txt", {"config": "network", "section": "@wireguard_wg0[x]", "option": "mtu", "value": "1420"},
     "got '@wireguard_wg0[x]'"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "type": "route", "option": "mtu", "value": "1420"},
     "type: section 'wg0' of network has type 'interface', not 'route'"),
    ("case01_network.txt", {"config": "network", "section": "@wireguard_wg0[0]", "type": "wireguard_wg0"},
     "type creates named sections only, got section '@wireguard_wg0[0]'"),
    ("case01_network.txt", {"config": "net/work", "section": "wg0"}, "config must be [A-Za-z0-9_-]+, got 'net/work'"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "mtu-x", "value": "1"},
     "option must be [A-Za-z0-9_]+, got 'mtu-x'"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "mtu"},
     "value is required to set option 'mtu'"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "mtu", "value": True},
     "value: booleans are ambiguous in uci, write '1' or '0', got True"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "mtu", "value": ""},
     "value: an empty value deletes the option in uci; use state=absent"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "mtu", "value": "1420", "state": "absent"},
     "value is not used with state=absent (use list_mode=del_list to remove list items), got '1420'"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "private_key", "value": K,
                            "state": "absent"}, "got '<redacted>'"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "list_mode": "add_list"},
     "list_mode=add_list needs option and value"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "dns", "state": "absent",
                            "list_mode": "del_list"}, "list_mode=del_list needs state=present, got state=absent"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "mtu", "value": "1", "state": "gone"},
     "state must be one of present, absent, got 'gone'"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "mtu", "value": "1", "list_mode": "x"},
     "list_mode must be one of replace, add_list, del_list, got 'x'"),
])
def test_plan_uci_change_errors(load_fixture, case, params, message):
    with pytest.raises(ParseError) as err:
        _plan(load_fixture, case, **params)
    assert message in str(err.value)
    assert K not in str(err.value)


@pytest.mark.parametrize("value, expected", [
    ("1420", "1420"), (1420, "1420"), (["a", 2], ["a", "2"]), (("a",), ["a"]), ("a b", "a b"),
])
def test_normalize_uci_value(value, expected):
    assert normalize_uci_value(value) == expected


@pytest.mark.parametrize("value, message", [
    (False, "booleans are ambiguous"), (1.5, "got 1.5"), (None, "got None"), ({"a": 1}, "got {'a': 1}"),
    ([], "empty list"), ([["a"]], "list items must be strings, got ['a']"), ([None], "got None"), ("", "empty value"),
])
def test_normalize_uci_value_errors(value, message):
    with pytest.raises(ParseError) as err:
        normalize_uci_value(value, "value")
    assert message in str(err.value)


@pytest.mark.parametrize("value, list_mode", [
    (["Q" * 43 + "="], "replace"), ({"k": "Q" * 43 + "="}, "replace"), ([["Q" * 43 + "="]], "replace"),
    ("Q" * 43 + "=", "add_list"), (1.5, "replace")])
def test_secret_takes_one_string_and_is_never_echoed(load_fixture, value, list_mode):
    """The router redacts a secret's whole line: a list could never be read back. The refusal hides the value."""
    with pytest.raises(ParseError) as err:
        _plan(load_fixture, "x_flag_cfg_names.txt", config="network", section="@wireguard_wg0[0]",
              option="preshared_key", value=value, list_mode=list_mode)
    assert "preshared_key" in str(err.value) and "Q" * 10 not in str(err.value) and "1.5" not in str(err.value)


@pytest.mark.parametrize("option, value, shown", [
    ("description", "two\nlines", "'two\\nlines'"), ("description", ["ok", "bad\r"], "'bad\\r'"),
    ("private_key", "N" * 20 + "\n" + "N" * 23 + "=", "'<redacted>'")])
def test_line_breaks_are_refused_up_front(load_fixture, option, value, shown):
    with pytest.raises(ParseError, match="one line") as err:
        _plan(load_fixture, "case01_network.txt", config="network", section="wg0", option=option, value=value)
    assert shown in str(err.value) and "N" * 20 not in str(err.value)


# readback_mismatch: the config read back after the uci commands (router-redacted: secrets are
# <redacted>, as uci_show_redacted_argv prints them), the action's options → what did not take.
READBACK_CASES = [
    # the write took: nothing to say
    ("case01_fixed_network.txt", {"config": "network", "section": "wg0", "option": "nohostroute", "value": "1"}, None),
    ("case01_network.txt", {"config": "network", "section": "@wireguard_wg0[0]", "option": "persistent_keepalive",
                            "value": "25"}, None),
    # it did not: the option and the value, found and wanted
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "nohostroute", "value": "1"},
     "network.wg0.nohostroute is not set, wanted '1'"),
    ("case01_network.txt", {"config": "network", "section": "@wireguard_wg0[0]", "option": "persistent_keepalive",
                            "value": "5"}, "network.@wireguard_wg0[0].persistent_keepalive is '25', wanted '5'"),
    ("case04_network.txt", {"config": "network", "section": "wg0", "option": "nohostroute", "state": "absent"},
     "network.wg0.nohostroute is '1', wanted not set"),
    ("case11_network_wg.txt", {"config": "network", "section": "dc", "option": "allowed_ips",
                               "value": ["10.30.0.3/32", "10.30.3.0/24"]},
     "network.dc.allowed_ips is '10.30.0.3/32', wanted '10.30.0.3/32' '10.30.3.0/24'"),
    # a secret, and a key-shaped value under another name: never shown
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "private_key", "value": "N" * 43 + "="},
     "network.wg0.private_key is <redacted>, wanted <redacted> (another value, not shown)"),
    ("case01_network.txt", {"config": "network", "section": "wg0", "option": "description", "value": "psk " + "Q" * 43 + "="},
     "network.wg0.description is not set, wanted 'psk <redacted>'"),
    # sections: not created, not deleted, gone
    ("case01_network.txt", {"config": "network", "section": "ep_main", "type": "route"},
     "section network.ep_main is missing, wanted of type 'route'"),
    ("case11_network_wg.txt", {"config": "network", "section": "dc", "state": "absent"},
     "section network.dc has type 'wireguard_wg0', wanted deleted"),
    ("case01_network.txt", {"config": "network", "section": "wg9", "option": "mtu", "value": "1420"},
     "section 'wg9' does not exist in network; give type to create it"),
]


@pytest.mark.parametrize("case, params, expected", READBACK_CASES)
def test_readback_mismatch_names_the_option_and_value(load_fixture, case, params, expected):
    parsed = parse_uci_show(load_fixture("uci_show", case))  # secrets redacted, as the router prints them
    message = readback_mismatch(parsed, params)
    assert message == expected
    for secret in (K, "N" * 43 + "=", "Q" * 43 + "="):
        assert secret not in repr(message)


# ---- every decision on both sides (issue 31.5): a small config written here, each rule and its negative -------------

SHOW = ("network.wg0=interface\n"
        "network.wg0.proto='wireguard'\n"
        "network.wg0.dns='1.1.1.1' '9.9.9.9'\n"
        "network.wg0.mtu='1420'\n"
        "network.wg0.preshared_key='" + "Q" * 43 + "='\n"
        "network.lan=interface\n"
        "network.lan.proto='static'\n")


def _small(**params):
    return plan_uci_change(parse_uci_show(SHOW, keep_secrets=True), dict({"config": "network", "section": "wg0"}, **params))


SMALL_CASES = [
    # replace: a string where a list was is one set; a list where a string was deletes first
    ({"option": "dns", "value": "8.8.8.8"}, [["uci", "set", "network.wg0.dns=8.8.8.8"]], "8.8.8.8"),
    ({"option": "dns", "value": ["9.9.9.9", "1.1.1.1"]},                  # another order is another list
     [["uci", "delete", "network.wg0.dns"], ["uci", "add_list", "network.wg0.dns=9.9.9.9"],
      ["uci", "add_list", "network.wg0.dns=1.1.1.1"]], ["9.9.9.9", "1.1.1.1"]),
    ({"option": "dns", "value": ["1.1.1.1", "9.9.9.9"]}, [], ["1.1.1.1", "9.9.9.9"]),
    ({"option": "mtu", "value": ["1420"]}, [], "1420"),
    ({"option": "mtu", "value": ["1420", "1280"]},
     [["uci", "delete", "network.wg0.mtu"], ["uci", "add_list", "network.wg0.mtu=1420"],
      ["uci", "add_list", "network.wg0.mtu=1280"]], ["1420", "1280"]),
    ({"option": "mtu", "value": 1280}, [["uci", "set", "network.wg0.mtu=1280"]], "1280"),
    ({"option": "gateway", "value": ["192.0.2.1"]}, [["uci", "add_list", "network.wg0.gateway=192.0.2.1"]], "192.0.2.1"),
    # add_list: one string is one item; items already there are not added again
    ({"option": "dns", "value": "8.8.8.8", "list_mode": "add_list"}, [["uci", "add_list", "network.wg0.dns=8.8.8.8"]],
     ["1.1.1.1", "9.9.9.9", "8.8.8.8"]),
    ({"option": "mtu", "value": ["1420", "1280"], "list_mode": "add_list"}, [["uci", "add_list", "network.wg0.mtu=1280"]],
     ["1420", "1280"]),
    ({"option": "gateway", "value": "192.0.2.1", "list_mode": "add_list"},
     [["uci", "add_list", "network.wg0.gateway=192.0.2.1"]], "192.0.2.1"),
    # del_list: each present item once, in the order asked; the last item deletes the option
    ({"option": "dns", "value": ["9.9.9.9", "9.9.9.9", "8.8.8.8"], "list_mode": "del_list"},
     [["uci", "del_list", "network.wg0.dns=9.9.9.9"]], "1.1.1.1"),
    ({"option": "dns", "value": ["9.9.9.9", "1.1.1.1"], "list_mode": "del_list"}, [["uci", "delete", "network.wg0.dns"]],
     None),
    ({"option": "dns", "value": "8.8.8.8", "list_mode": "del_list"}, [], ["1.1.1.1", "9.9.9.9"]),
    ({"option": "gateway", "value": "8.8.8.8", "list_mode": "del_list"}, [], None),
    # absent
    ({"option": "mtu", "state": "absent"}, [["uci", "delete", "network.wg0.mtu"]], None),
    ({"option": "gateway", "state": "absent"}, [], None),
    # state and list_mode left empty are present and replace
    ({"option": "mtu", "value": "1280", "state": None, "list_mode": ""}, [["uci", "set", "network.wg0.mtu=1280"]], "1280"),
    ({"option": "mtu", "value": "1280", "state": "", "list_mode": None}, [["uci", "set", "network.wg0.mtu=1280"]], "1280"),
]


@pytest.mark.parametrize("params, commands, after", SMALL_CASES)
def test_each_list_mode_and_state(params, commands, after):
    plan = _small(**params)
    assert plan["commands"] == plan["commands_redacted"] == commands
    assert plan["changed"] is bool(commands) and plan["section"] == "wg0"
    assert plan["after"]["options"].get(params["option"]) == after
    others = {key: value for key, value in plan["after"]["options"].items() if key != params["option"]}
    assert others == {key: value for key, value in plan["before"]["options"].items() if key != params["option"]}


def test_a_result_whole():
    plan = _small(option="mtu", value="1280")
    shown = {"proto": "wireguard", "dns": ["1.1.1.1", "9.9.9.9"], "mtu": "1420", "preshared_key": "<redacted>"}
    assert plan == {
        "changed": True, "section": "wg0",
        "commands": [["uci", "set", "network.wg0.mtu=1280"]],
        "commands_redacted": [["uci", "set", "network.wg0.mtu=1280"]],
        "before": {"type": "interface", "options": shown},
        "after": {"type": "interface", "options": dict(shown, mtu="1280")},
        "diff": {"before": "network.wg0=interface\nnetwork.wg0.proto='wireguard'\nnetwork.wg0.dns='1.1.1.1' '9.9.9.9'\n"
                           "network.wg0.mtu='1420'\nnetwork.wg0.preshared_key='<redacted>'\n",
                 "after": "network.wg0=interface\nnetwork.wg0.proto='wireguard'\nnetwork.wg0.dns='1.1.1.1' '9.9.9.9'\n"
                          "network.wg0.mtu='1280'\nnetwork.wg0.preshared_key='<redacted>'\n",
                 "before_header": "uci show network, section wg0", "after_header": "uci show network, section wg0"}}


def test_nothing_to_delete_is_named_as_asked():
    plan = _small(section="@route[0]", state="absent")
    assert plan == {"changed": False, "section": "@route[0]", "commands": [], "commands_redacted": [], "before": None,
                    "after": None, "diff": {"before": "", "after": "", "before_header": "uci show network, section @route[0]",
                                            "after_header": "uci show network, section @route[0]"}}


@pytest.mark.parametrize("parsed", [None, [], "network", {}, {"firewall": {}}])
def test_a_config_uci_show_did_not_print_is_empty(parsed):
    params = {"config": "network", "section": "wg0", "type": "interface", "option": "mtu", "value": "1280"}
    plan = plan_uci_change(parsed, params)
    assert plan["commands"] == plan["commands_redacted"] == [["uci", "set", "network.wg0=interface"],
                                                             ["uci", "set", "network.wg0.mtu=1280"]]
    assert (plan["before"], plan["after"]) == (None, {"type": "interface", "options": {"mtu": "1280"}})
    with pytest.raises(ParseError, match="^section 'wg0' does not exist in network; give type to create it$"):
        plan_uci_change(parsed, dict(params, type=None))


def test_a_section_of_the_type_asked_is_used_as_it_is():
    plan = _small(type="interface", option="mtu", value="1280")
    assert plan["commands"] == [["uci", "set", "network.wg0.mtu=1280"]]
    assert _small(type="interface")["commands"] == []
    with pytest.raises(ParseError, match="^type: section 'lan' of network has type 'interface', not 'route'$"):
        _small(section="lan", type="route")


def test_a_missing_anonymous_section_is_never_created():
    with pytest.raises(ParseError, match=r"^section: section '@route\[0\]' not found in network: it has 0 section\(s\) of type "
                                         r"route; this action creates named sections only$"):
        _small(section="@route[0]", option="target", value="192.0.2.0/24")


@pytest.mark.parametrize("params, commands, redacted, after", [
    # a secret changed: the command carries it, nothing else does
    ({"option": "preshared_key", "value": "R" * 43 + "="}, [["uci", "set", "network.wg0.preshared_key=" + "R" * 43 + "="]],
     [["uci", "set", "network.wg0.preshared_key=<redacted>"]], REDACTED_CHANGED),
    # a new secret is only redacted: nothing was there to change
    ({"section": "lan", "option": "private_key", "value": "N" * 43 + "="},
     [["uci", "set", "network.lan.private_key=" + "N" * 43 + "="]], [["uci", "set", "network.lan.private_key=<redacted>"]],
     "<redacted>"),
    # a key-shaped value under another name is written and shown like a secret
    ({"option": "description", "value": "psk " + "Q" * 43 + "="},
     [["uci", "set", "network.wg0.description=psk " + "Q" * 43 + "="]],
     [["uci", "set", "network.wg0.description=<redacted>"]], "psk <redacted>"),
    # a public key is not a secret
    ({"option": "public_key", "value": "P" * 43 + "="}, [["uci", "set", "network.wg0.public_key=" + "P" * 43 + "="]],
     [["uci", "set", "network.wg0.public_key=" + "P" * 43 + "="]], "P" * 43 + "="),
    # another option of a section with a secret: the secret stays <redacted>, not changed
    ({"option": "mtu", "value": "1280"}, [["uci", "set", "network.wg0.mtu=1280"]],
     [["uci", "set", "network.wg0.mtu=1280"]], "1280"),
])
def test_secrets_in_commands_and_results(params, commands, redacted, after):
    plan = _small(**params)
    assert (plan["commands"], plan["commands_redacted"]) == (commands, redacted)
    assert plan["after"]["options"][params["option"]] == after
    assert plan["after"]["options"].get("preshared_key") in (None, "<redacted>", REDACTED_CHANGED)
    if params["option"] != "preshared_key":
        assert plan["after"]["options"].get("preshared_key") in (None, "<redacted>")


def test_deleting_a_section_with_a_secret_keeps_it_redacted():
    plan = _small(state="absent")
    assert plan["commands"] == [["uci", "delete", "network.wg0"]] and plan["after"] is None
    assert plan["diff"]["before_header"] == plan["diff"]["after_header"] == "uci show network, section wg0"
    assert plan["before"]["options"]["preshared_key"] == "<redacted>"


# (params, message): _check_params on each side of each check
CHECK_CASES = [
    ({"config": "", "section": "wg0"}, "config must be [A-Za-z0-9_-]+, got ''"),
    ({"config": 5, "section": "wg0"}, "config must be [A-Za-z0-9_-]+, got 5"),
    ({"config": None, "section": "wg0"}, "config must be [A-Za-z0-9_-]+, got None"),
    ({"config": "net-work_2", "section": "wg0", "state": "absent"}, None),
    ({"config": "network", "section": 5}, "section must be a section name ([A-Za-z0-9_]+) or @type[N], got 5"),
    ({"config": "network", "section": ""}, "section must be a section name ([A-Za-z0-9_]+) or @type[N], got ''"),
    ({"config": "network", "section": "wg-0"}, "section must be a section name ([A-Za-z0-9_]+) or @type[N], got 'wg-0'"),
    ({"config": "network", "section": "@wire-guard[-1]", "state": "absent"}, None),
    ({"config": "network", "section": "wg0", "option": 5, "value": "1"}, "option must be [A-Za-z0-9_]+, got 5"),
    ({"config": "network", "section": "wg0", "option": "", "value": "1"}, "option must be [A-Za-z0-9_]+, got ''"),
    ({"config": "network", "section": "wg0", "type": "route-x"}, None),
    ({"config": "network", "section": "wg0", "type": 5}, "type must be [A-Za-z0-9_-]+, got 5"),
    ({"config": "network", "section": "wg0", "type": ""}, "type must be [A-Za-z0-9_-]+, got ''"),
    ({"config": "network", "section": "wg0", "value": "1"}, "option is required with value"),
    ({"config": "network", "section": "wg0", "state": "absent", "value": "1"},
     "value is not used with state=absent (use list_mode=del_list to remove list items), got '1'"),
    ({"config": "network", "section": "wg0", "option": "psk", "state": "absent", "value": "x"},
     "value is not used with state=absent (use list_mode=del_list to remove list items), got '<redacted>'"),
    ({"config": "network", "section": "wg0", "option": "mtu", "state": "absent", "list_mode": "add_list"},
     "list_mode=add_list needs state=present, got state=absent"),
    ({"config": "network", "section": "wg0", "option": "mtu", "state": "absent", "list_mode": "replace"}, None),
    ({"config": "network", "section": "wg0", "list_mode": "del_list"}, "list_mode=del_list needs option and value"),
    ({"config": "network", "section": "wg0", "option": "mtu", "value": 1.5},
     "value: value must be a string, an integer or a list of them, got 1.5"),
    ({"config": "network", "section": "wg0", "option": "mtu", "value": ["1", "2\n"]},
     "value: uci values are one line; a line break is not allowed, got '2\\n'"),
    ({"config": "network", "section": "wg0", "option": "psk", "value": ("a",)},
     "value: psk is a secret option and takes one string, got a tuple (not shown)"),
    ({"config": "network", "section": "wg0", "option": "psk", "value": "a", "list_mode": "del_list"},
     "value: psk is a secret option and takes one string, got a list_mode=del_list (not shown)"),
    ({"config": "network", "section": "wg0", "option": "psk", "value": None, "list_mode": "add_list"},
     "value is required to set option 'psk' (state=present)"),
    ({"config": "network", "section": "wg0", "option": "psk", "value": 1.5},
     "value: psk is a secret option; its value is not a string or integer (the value is not shown)"),
    ({"config": "network", "section": "wg0", "option": "psk", "value": 1234}, None),
    ({"config": "network", "section": "wg0", "state": "gone"}, "state must be one of present, absent, got 'gone'"),
    ({"config": "network", "section": "wg0", "option": "dns", "value": "x", "list_mode": "append"},
     "list_mode must be one of replace, add_list, del_list, got 'append'"),
    ({"config": "network", "section": "@route[0]", "type": "route"}, "type creates named sections only, got section '@route[0]'"),
    # a key-shaped value is a secret under any name but a public key: one string, never echoed
    ({"config": "network", "section": "wg0", "option": "description", "value": ["psk " + "Q" * 43 + "="]},
     "value: description is a secret option and takes one string, got a list (not shown)"),
    ({"config": "network", "section": "wg0", "option": "description", "value": "psk " + "Q" * 43 + "=\n"},
     "value: uci values are one line; a line break is not allowed, got '<redacted>'"),
    ({"config": "network", "section": "wg0", "option": "description", "value": ["plain words", "two"]}, None),
]


@pytest.mark.parametrize("params, message", CHECK_CASES)
def test_check_uci_params_on_both_sides(params, message):
    if message is None:
        assert check_uci_params(params) is None
        return
    with pytest.raises(ParseError) as err:
        check_uci_params(params)
    assert str(err.value) == message


@pytest.mark.parametrize("value, option, message", [
    (True, "mtu", "mtu: booleans are ambiguous in uci, write '1' or '0', got True"),
    ("", "mtu", "mtu: an empty value deletes the option in uci; use state=absent, got ''"),
    ([], "dns", "dns: empty list; use state=absent to delete the option, got []"),
    ([{"a": 1}], "dns", "dns: list items must be strings, got {'a': 1}"),
    ([("a",)], "dns", "dns: list items must be strings, got ('a',)"),
    (["a", 1.5], "dns", "dns: value must be a string, an integer or a list of them, got 1.5"),
    ([False], "dns", "dns: booleans are ambiguous in uci, write '1' or '0', got False"),
    (None, None, "value: value must be a string, an integer or a list of them, got None"),
])
def test_normalize_names_the_option(value, option, message):
    with pytest.raises(ParseError) as err:
        if option is None:
            normalize_uci_value(value)
        else:
            normalize_uci_value(value, option)
    assert str(err.value) == message


def test_normalize_keeps_zero_and_list_order():
    assert normalize_uci_value(0) == "0" and normalize_uci_value(-1) == "-1"
    assert normalize_uci_value(["b", "a", "b"]) == ["b", "a", "b"]
    assert normalize_uci_value("0") == "0"


@pytest.mark.parametrize("show, params, expected", [
    # the write took / did not, a section's type and its deletion
    (SHOW, {"option": "mtu", "value": "1420"}, None),
    (SHOW, {"option": "mtu", "value": "1280"}, "network.wg0.mtu is '1420', wanted '1280'"),
    (SHOW, {"option": "mtu", "state": "absent"}, "network.wg0.mtu is '1420', wanted not set"),
    (SHOW, {"option": "dns", "value": "8.8.8.8", "list_mode": "add_list"},
     "network.wg0.dns is '1.1.1.1' '9.9.9.9', wanted '1.1.1.1' '9.9.9.9' '8.8.8.8'"),
    (SHOW, {"state": "absent"}, "section network.wg0 has type 'interface', wanted deleted"),
    (SHOW, {"section": "wg1", "type": "interface"}, "section network.wg1 is missing, wanted of type 'interface'"),
    (SHOW, {"section": "wg1", "type": "interface", "option": "mtu", "value": "1420"},
     "network.wg1.mtu is not set, wanted '1420'"),
    (SHOW, {"section": "wg1", "state": "absent"}, None),
    (SHOW, {"config": "bad/name"}, "config must be [A-Za-z0-9_-]+, got 'bad/name'"),
    # read back redacted (as the router prints it): a changed secret cannot be told apart
    (SHOW.replace("Q" * 43 + "=", "<redacted>"), {"option": "preshared_key", "value": "R" * 43 + "="},
     "network.wg0.preshared_key is <redacted>, wanted <redacted> (another value, not shown)"),
    (SHOW.replace("Q" * 43 + "=", "<redacted>"), {"option": "preshared_key", "state": "absent"},
     "network.wg0.preshared_key is <redacted>, wanted not set"),
    (SHOW, {"section": "lan", "option": "private_key", "value": "N" * 43 + "="},
     "network.lan.private_key is not set, wanted <redacted>"),
])
def test_readback_mismatch_word_for_word(show, params, expected):
    params = dict({"config": "network", "section": "wg0"}, **params)
    assert readback_mismatch(parse_uci_show(show), params) == expected
