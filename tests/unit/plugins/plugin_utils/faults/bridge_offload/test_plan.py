# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bridge fault's plan (Fault.plan): what bridge_gso_off would turn off live, from the facts alone; [] converged,
None cannot tell (moved from test_fault_plans.py with the fault's folder)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.plan import offload_plan


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
    (bridge_view(), {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_features": ["lro"]}, ["ethtool -K br-lan lro off",
                                                                                                 "ethtool -K lan1 lro off"]),
    (bridge_view(), {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_features": ["rx"]}, None),
    (bridge_view(), {"bridge_gso_off_bridges": ["br-guest"]}, None),
    (bridge_view(), {}, None),
])
def test_bridge_plan(view, role_vars, expected):
    assert offload_plan(view, role_vars) == expected


def test_bridge_plan_without_offload_facts():
    view = bridge_view()
    view["tunnelfix"]["bridges"]["bridges"]["br-lan"]["ports"]["lan1"]["features"] = None
    assert offload_plan(view, {"bridge_gso_off_bridges": ["br-lan"], "bridge_gso_off_persist": False}) is None
