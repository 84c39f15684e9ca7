# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one check of the uplink options (uplinks.uplink_option_errors): a bad value is refused naming the option and the value.

openwrt_facts and wg_endpoint_route (tests/unit/plugins/action) and the role (fix/role_options) call it; the last test
here pins that the role's message is this one.
"""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import uplink_option_errors
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.role_options import option_errors
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import RULE

NOT_A_NAME = " is not a uci interface or device name (%s)" % RULE


@pytest.mark.parametrize("preferred, metered", [
    ("wan", []), ("wwan0", ["wanb", "pppoe-wan"]), (None, ["wanb"]), ("x" * 15, ["a.b", "a@b", "a=b+c_d-e"]),
])
def test_good_values_give_no_message(preferred, metered):
    assert uplink_option_errors(preferred, metered) == []
    assert uplink_option_errors(preferred or "wan", metered, prefix="openwrt_mwan3_wg_", preferred_required=True) == []


@pytest.mark.parametrize("preferred, metered, prefix, required, messages", [
    ("wan;reboot", [], "", False, ['preferred_uplink: "wan;reboot"' + NOT_A_NAME]),
    ("", [], "", False, ['preferred_uplink: ""' + NOT_A_NAME]),
    (5, [], "", False, ['preferred_uplink: "5"' + NOT_A_NAME]),           # as given: a number is no name
    (["wan"], [], "", False, ['preferred_uplink: "[\'wan\']"' + NOT_A_NAME]),
    ("x" * 16, [], "", False, ['preferred_uplink: "%s"' % ("x" * 16) + NOT_A_NAME]),   # IFNAMSIZ
    (None, [], "openwrt_mwan3_wg_", True, ['openwrt_mwan3_wg_preferred_uplink: "None"' + NOT_A_NAME]),
    ("wan", ["wanb", "wan\n"], "", False, ['metered_uplinks: "wan\\n"' + NOT_A_NAME]),
    ("wan", ["eth0:1", "wanb", "$(reboot)"], "openwrt_mwan3_wg_", True,
     ['openwrt_mwan3_wg_metered_uplinks: "eth0:1"' + NOT_A_NAME, 'openwrt_mwan3_wg_metered_uplinks: "$(reboot)"' + NOT_A_NAME]),
    ("wan", "wanb,wanc", "openwrt_mwan3_wg_", True,
     ['openwrt_mwan3_wg_metered_uplinks must be a list of uci interface or device names, got "wanb,wanc"']),
    ("a b", None, "", False,
     ['preferred_uplink: "a b"' + NOT_A_NAME, 'metered_uplinks must be a list of uci interface or device names, got "None"']),
])
def test_a_bad_value_is_refused_naming_the_option_and_the_value(preferred, metered, prefix, required, messages):
    assert uplink_option_errors(preferred, metered, prefix=prefix, preferred_required=required) == messages


@pytest.mark.parametrize("preferred, metered", [("wan;reboot", []), ("wan", ["x" * 16]), (["wan"], "wanb")])
def test_the_role_refuses_with_the_same_messages(preferred, metered):
    options = {"openwrt_mwan3_wg_interfaces": [], "openwrt_mwan3_wg_preferred_uplink": preferred,
               "openwrt_mwan3_wg_metered_uplinks": metered, "openwrt_mwan3_wg_rollback_timeout_s": 60}
    assert option_errors("openwrt_mwan3_wg", options) == uplink_option_errors(preferred, metered, prefix="openwrt_mwan3_wg_",
                                                                              preferred_required=True)
