# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""host_facts: a router (inventory group tunnelfix_openwrt) gets openwrt_facts, any other host tunnel_facts."""

from types import SimpleNamespace

import pytest
from ansible.playbook.task import Task

from ansible_collections.tunnelfix.fleet.plugins.action import host_facts
from ansible_collections.tunnelfix.fleet.plugins.action.openwrt_facts import ActionModule as OpenWrtFacts
from ansible_collections.tunnelfix.fleet.plugins.action.tunnel_facts import ActionModule as TunnelFacts


@pytest.mark.parametrize("group_names, chosen", [
    (["tunnelfix_openwrt"], OpenWrtFacts),
    (["tunnelfix_wireguard_peers", "tunnelfix_openwrt"], OpenWrtFacts),
    (["tunnelfix_wireguard_peers"], TunnelFacts),
    (["tunnelfix_wireguard_hubs"], TunnelFacts),
    ([], TunnelFacts),
    (None, TunnelFacts),
])
def test_the_platform_comes_from_the_inventory_group(group_names, chosen):
    assert host_facts.facts_action_of(group_names) is chosen


@pytest.fixture(name="recorded")
def fixture_recorded(monkeypatch):
    """Stand-ins for both facts actions: each records the args it got and returns them."""
    seen = []

    def stand_in(kind):
        class StandIn:
            def __init__(self, task, connection, play_context, loader, templar, shared_loader_obj):
                self.task, self.connection = task, connection
                del play_context, loader, templar, shared_loader_obj

            def run(self, task_vars=None):
                seen.append((kind, dict(self.task.args), self.connection, task_vars))
                return {"changed": False, "ansible_facts": {kind: {}}}
        return StandIn

    monkeypatch.setattr(host_facts, "OpenWrtFacts", stand_in("tunnelfix_openwrt"))
    monkeypatch.setattr(host_facts, "TunnelFacts", stand_in("tunnelfix"))
    return seen


def _run(args, group_names):
    task = Task()
    task.args = dict(args)
    connection = SimpleNamespace(_shell=SimpleNamespace(tmpdir=None))   # never used: no command runs in these tests
    action = host_facts.ActionModule(task, connection, None, None, None, None)
    task_vars = {"group_names": group_names}
    return action.run(task_vars=task_vars), connection, task_vars, task


ROUTER_ARGS = {"preferred_uplink": "wan", "metered_uplinks": ["wanb"]}


def test_a_router_gets_openwrt_facts_with_every_option(recorded):
    result, connection, task_vars, task = _run(dict(ROUTER_ARGS, label="after"), ["tunnelfix_openwrt"])
    assert result == {"changed": False, "ansible_facts": {"tunnelfix_openwrt": {}}}
    assert recorded == [("tunnelfix_openwrt", dict(ROUTER_ARGS, label="after"), connection, task_vars)]
    assert task.args == dict(ROUTER_ARGS, label="after")


def test_a_linux_host_gets_tunnel_facts_without_the_router_options(recorded):
    result, connection, task_vars, task = _run(dict(ROUTER_ARGS, label="before"), ["tunnelfix_wireguard_peers"])
    assert result == {"changed": False, "ansible_facts": {"tunnelfix": {}}}
    assert recorded == [("tunnelfix", {"label": "before"}, connection, task_vars)]
    assert task.args == dict(ROUTER_ARGS, label="before")   # the task itself is left as it was


@pytest.mark.parametrize("group_names", [["tunnelfix_wireguard_hubs"], ["tunnelfix_openwrt"]])
def test_an_unknown_option_is_refused_by_the_chosen_action_naming_it(group_names):
    result = _run({"bogus_option": 1}, group_names)[0]
    assert result["failed"] is True and "bogus_option" in result["msg"]


def test_a_bad_preferred_uplink_on_a_router_is_refused_naming_it():
    result = _run({"preferred_uplink": "not a name!"}, ["tunnelfix_openwrt"])[0]
    assert result["failed"] is True and "preferred_uplink" in result["msg"] and "not a name!" in result["msg"]
