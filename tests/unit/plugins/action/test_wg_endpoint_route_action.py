# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The wg_endpoint_route action against a fake target: commands run, check mode, fallbacks, failures."""

import shlex
from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.wg_endpoint_route import ActionModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._remote_redact import uci_show_redacted_argv

SHOW = "uci -q show network"
REDACTED_SHOW = {shlex.join(uci_show_redacted_argv("network")): SHOW}
ROUTES = "ip -j route show table all"
GET = "ip -j route get 203.0.113.10"
DEL = "ip route del 203.0.113.10/32 via 198.51.100.1 dev wwan0"
GET_VIA_WAN = '[{"dst":"203.0.113.10","gateway":"192.0.2.1","dev":"eth1","prefsrc":"192.0.2.20","flags":[],"uid":0,"cache":[]}]'


class FakeAction(ActionModule):
    def __init__(self, args, answers, check_mode=False, diff=False):
        task = SimpleNamespace(args=args, async_val=0, check_mode=check_mode, diff=diff,
                               action="tunnelfix.fleet.wg_endpoint_route")
        connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))
        super().__init__(task, connection, None, None, None)
        self._load_name = "tunnelfix.fleet.wg_endpoint_route"
        self.answers = answers
        self.ran = []

    def _low_level_execute_command(self, cmd, sudoable=True, in_data=None, executable=None,
                                   encoding_errors="surrogate_then_replace", chdir=None):
        cmd = REDACTED_SHOW.get(cmd, cmd)  # the router-side redacting script, by the name it is reported under
        self.ran.append(cmd)
        rc, stdout, stderr = self.answers.get(cmd, (0, "", ""))
        return {"rc": rc, "stdout": stdout, "stderr": stderr}


@pytest.fixture
def case01(load_fixture):
    return {SHOW: (0, load_fixture("uci_show", "case01_network.txt"), ""),
            ROUTES: (0, load_fixture("ip_j_route_show", "endpoint_pinned_to_backup_table_all.txt"), ""),
            GET: (0, GET_VIA_WAN, "")}


def test_split_tunnel_sets_commits_and_deletes_exactly(case01):
    action = FakeAction({"preferred_uplink": "wan"}, case01, diff=True)
    result = action.run(task_vars={})
    assert action.ran == [SHOW, ROUTES, "uci set network.wg0.nohostroute=1", "uci commit network", DEL, GET]
    assert result["changed"] is True and result["committed"] is True
    assert result["preferred_device"] == "eth1"
    assert result["endpoint_routes"] == {"203.0.113.10": {"dev": "eth1", "gateway": "192.0.2.1"}}
    assert "route 203.0.113.10/32 via 198.51.100.1 dev wwan0" in result["diff"]["before"]
    assert "K" * 43 not in repr(result)


def test_check_mode_changes_nothing(case01):
    action = FakeAction({}, case01, check_mode=True)
    result = action.run(task_vars={})
    assert action.ran == [SHOW, ROUTES, GET]
    assert result["changed"] is True and result["committed"] is False
    assert result["commands"] == ["uci set network.wg0.nohostroute=1", DEL]


def test_busybox_route_fallback(case01, load_fixture):
    text = "".join(l for l in load_fixture("busybox_route_n", "case01_lan_gateway.txt").splitlines(True)
                   if not l.startswith("#"))
    case01[ROUTES] = (255, "", 'Option "-j" is unknown')
    case01["route -n"] = (0, text, "")
    result = FakeAction({}, case01, check_mode=True).run(task_vars={})
    assert result["routes_source"] == "route -n"
    assert result["commands"][1] == "ip route del 203.0.113.10/32 via 192.168.10.1 dev br-lan"


def test_full_tunnel_is_refused_with_a_warning(load_fixture):
    answers = {SHOW: (0, load_fixture("uci_show", "case04_network.txt"), ""), ROUTES: (0, "[]", ""),
               "ip -j route get 203.0.113.55": (2, "", "RTNETLINK answers: Network is unreachable"),
               "ip route get 203.0.113.55": (2, "", "RTNETLINK answers: Network is unreachable")}
    result = FakeAction({}, answers, check_mode=True).run(task_vars={})
    assert result["interfaces"]["wg0"]["tunnel"] == "full"
    assert "routing loop" in result["warnings"][0]
    assert result["commands"] == ["uci delete network.wg0.nohostroute"]
    assert result["full_tunnel_endpoints"] == [{"interface": "wg0", "endpoint": "203.0.113.55"}]
    assert result["endpoint_routes"] == {"203.0.113.55": None}


@pytest.mark.parametrize("args, answers_update, message", [
    ({"interfaces": ["wg9"]}, {}, "interfaces: 'wg9' is not a proto wireguard interface"),
    ({}, {SHOW: (1, "", "")}, "uci: no network config on the target"),
    ({}, {DEL: (2, "", "RTNETLINK answers: No such process")}, "RTNETLINK answers: No such process"),
])
def test_failures_name_the_cause(case01, args, answers_update, message):
    case01.update(answers_update)
    result = FakeAction(args, case01).run(task_vars={})
    assert result["failed"] is True
    assert message in result["msg"]
