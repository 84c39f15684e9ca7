# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge fault's plan (Fault.plan): what bridge_gso_off would turn off live, from the facts alone; [] converged,
None cannot tell (moved from test_fault_plans.py with the fault's folder)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.plan import bridge_plan, fact_features


# bridges ----------------------------------------------------------------------------------------

def bridge_view(bridge="off", port="off"):
    def device(state):
        return {"features": {"generic-segmentation-offload": state, "tcp-segmentation-offload": "off [fixed]",
                             "generic-receive-offload": "off", "large-receive-offload": "on"}}
    return {"tunnelfix": {"bridges": {"ip_json": True, "bridges": {"br-lan": dict(device(bridge), ports={"lan1": device(port)})}}}}


@pytest.mark.parametrize("view, role_vars, expected", [
    (bridge_view(), {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_persist": False}, []),
    (bridge_view(), {"bridge_gso_off_bridges": ["br-lan"]}, None),     # the persisted files are not read
    (bridge_view(port="on"), {"bridge_gso_off_bridges": ["br-lan"]}, ["ethtool -K lan1 gso off"]),
    (bridge_view(bridge="on [fixed]"), {"bridge_gso_off_bridges": "br-lan", "bridge_gso_off_persist": False}, []),
    # the action's order: ports before their bridge, one command per device, features as asked
    (bridge_view(), {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_features": ["lro"]}, ["ethtool -K lan1 lro off",
                                                                                                 "ethtool -K br-lan lro off"]),
    (bridge_view(bridge="on", port="on"), {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_features": ["lro", "gso"]},
     ["ethtool -K lan1 lro off gso off", "ethtool -K br-lan lro off gso off"]),
    (bridge_view(), {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_features": ["rx"]}, None),
    (bridge_view(), {"bridge_gso_off_bridges": ["br-guest"]}, None),
    (bridge_view(), {}, None),
])
def test_bridge_plan(view, role_vars, expected):
    assert bridge_plan(view, role_vars) == expected


def test_bridge_plan_without_offload_facts():
    view = bridge_view()
    view["tunnelfix"]["bridges"]["bridges"]["br-lan"]["ports"]["lan1"]["features"] = None
    assert bridge_plan(view, {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_persist": False}) is None


def test_bridge_plan_skips_a_feature_a_device_does_not_have():
    """As the action does: a port whose ethtool -k lists no lro has nothing to turn off there."""
    view = bridge_view()
    del view["tunnelfix"]["bridges"]["bridges"]["br-lan"]["ports"]["lan1"]["features"]["large-receive-offload"]
    assert bridge_plan(view, {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_features": ["lro"]}) == [
        "ethtool -K br-lan lro off"]


@pytest.mark.parametrize("state", ["maybe", None, "on [requested off]"])
def test_bridge_plan_cannot_tell_from_a_state_the_facts_do_not_write(state):
    view = bridge_view()
    view["tunnelfix"]["bridges"]["bridges"]["br-lan"]["ports"]["lan1"]["features"]["generic-receive-offload"] = state
    assert bridge_plan(view, {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_persist": False}) is None


def test_fact_features_in_the_parsers_shape():
    assert fact_features({"features": {"a": "on", "b": "off", "c": "on [fixed]", "d": "off [fixed]"}}) == {
        "a": {"enabled": True, "fixed": False, "requested": True}, "b": {"enabled": False, "fixed": False, "requested": False},
        "c": {"enabled": True, "fixed": True, "requested": None}, "d": {"enabled": False, "fixed": True, "requested": None}}
    assert fact_features({"features": None}) is None and fact_features(None) is None


def test_bridge_plan_with_no_features_asked_cannot_tell():
    assert bridge_plan(bridge_view(), {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_features": []}) is None
