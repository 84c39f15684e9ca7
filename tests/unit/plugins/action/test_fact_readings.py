# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fault that needs a new reading only defines and declares it: both facts actions batch its command with the
others (one remote execution) and return its facts, with no change of their own (faults/reading.py).

Against the fake host of this folder's conftest.py (``batch_action``: the script really runs, stubs print the answers).
"""

from dataclasses import replace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action import openwrt_facts, tunnel_facts
from ansible_collections.tunnelfix.fleet.plugins.action.openwrt_facts import ActionModule as OpenWrtFacts
from ansible_collections.tunnelfix.fleet.plugins.action.tunnel_facts import ActionModule as TunnelFacts
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import Read, Reading, public_names
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import WIREGUARD
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import step_of

PROBE = ["mtuprobe", "--max", "wg0"]


def _largest(action, facts, args):
    """The made-up reading's gather: the number the probe prints, and the peers' interfaces it took from wireguard."""
    res = action.step(PROBE)
    return {"largest_bytes": int(res["stdout"]), "interfaces": sorted(facts["wireguard"]["interfaces"])}


PATH_MTU = Reading("path_mtu", {platform: Read(steps=(step_of(PROBE),), gather=_largest, needs=(WIREGUARD,))
                                for platform in ("linux", "openwrt")})


@pytest.fixture
def with_path_mtu(monkeypatch):
    """The registry with one more fault, which declares the new reading."""
    fault = replace(registry.FAULTS[0], id="path_mtu_black_hole", facts=(PATH_MTU,))
    monkeypatch.setattr(registry, "FAULTS", registry.FAULTS + (fault,))


@pytest.fixture
def host(load_fixture):
    return {
        "date +%s": (0, "1796029496\n", ""),
        "wg show all dump": (0, load_fixture("wg_show_all_dump", "nat_peer_no_keepalive.txt"), ""),
        "mtuprobe --max wg0": (0, "1372\n", ""),
        "uci -q show network": (0, "", ""),  # openwrt_facts' peers: the live ones only
    }


@pytest.mark.parametrize("action_class, key", [(TunnelFacts, "tunnelfix"), (OpenWrtFacts, "tunnelfix_openwrt")])
def test_a_declared_reading_is_batched_and_gathered(batch_action, host, with_path_mtu, action_class, key):
    action = batch_action(action_class, {"gather_subset": ["path_mtu"]}, host)
    result = action.run(task_vars={})
    assert result.get("failed") is not True, result
    assert len(action.ran) == 1  # the probe ran inside the one script, next to the WireGuard dump it needs
    assert "mtuprobe --max wg0" in action.router.calls() and "wg show all dump" in action.router.calls()
    facts = result["ansible_facts"][key]
    assert facts["path_mtu"] == {"largest_bytes": 1372, "interfaces": ["wg0"]}
    assert set(facts) == {"path_mtu", "wireguard"}  # a need comes back with it


@pytest.mark.parametrize("action_class", [TunnelFacts, OpenWrtFacts])
def test_a_reading_not_asked_for_is_not_run(batch_action, host, with_path_mtu, action_class):
    action = batch_action(action_class, {"gather_subset": ["wireguard"]}, host)
    result = action.run(task_vars={})
    assert result.get("failed") is not True, result
    assert "wg show all dump" in action.router.calls() and "mtuprobe --max wg0" not in action.router.calls()
    assert "path_mtu" not in result["ansible_facts"]["tunnelfix" if action_class is TunnelFacts else "tunnelfix_openwrt"]


@pytest.mark.parametrize("module, platform", [(tunnel_facts, "linux"), (openwrt_facts, "openwrt")])
def test_all_offers_it_after_the_others(with_path_mtu, module, platform):
    assert public_names(registry.readings(platform)) == module.SUBSETS + ("path_mtu",)
    assert step_of(PROBE) in module.batch_steps({"path_mtu"})


def test_without_the_fault_the_reading_is_not_offered(batch_action, host):
    result = batch_action(TunnelFacts, {"gather_subset": ["path_mtu"]}, host).run(task_vars={})
    assert result["failed"] is True and "unknown subset 'path_mtu'" in result["msg"]
