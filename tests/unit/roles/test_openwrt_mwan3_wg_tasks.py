# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""openwrt_mwan3_wg's tasks around its full-tunnel hook, as Ansible evaluates them: the hook is installed or removed
exactly where fault 1's plan (``plan_endpoint_routes``' ``hotplug_hook``) says, at the path the facts probe, and the
role hands the option that decides it to wg_endpoint_route. A stale hook re-pins an endpoint /32 on every mwan3 event,
the fault itself (tasks/routes.yml)."""

from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route import hook
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.plan import plan_endpoint_routes

ROLE = Path(__file__).resolve().parents[3] / "roles" / "openwrt_mwan3_wg"
TASKS = yaml.safe_load((ROLE / "tasks" / "routes.yml").read_text(encoding="utf-8"))
VARS = yaml.safe_load((ROLE / "vars" / "main.yml").read_text(encoding="utf-8"))
DEFAULTS = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text(encoding="utf-8"))
INSTALL = "Install the hotplug script that re-points full-tunnel endpoint host routes on mwan3's events"
REMOVE = "Remove the stale hotplug script (no full tunnel left, or openwrt_mwan3_wg_full_tunnel_hotplug false)"
PLAN = "Set nohostroute on split tunnels and delete their pinned endpoint routes"
OLD_REMOVE = "Remove the full-tunnel hook an earlier version left where mwan3 never calls it"


def task(name):
    [found] = [item for item in TASKS if item.get("name") == name]
    return found


def runs(name, plan, **role_vars):
    """Whether task ``name``'s ``when`` holds with the registered plan ``plan``."""
    conditions = task(name)["when"]
    templar = Templar(loader=DataLoader(), variables=dict(DEFAULTS, **VARS, **role_vars, __openwrt_mwan3_wg_plan=plan))
    return all(templar.evaluate_conditional(trust_as_template(condition))
               for condition in (conditions if isinstance(conditions, list) else [conditions]))


SPLIT = {"in_uci": True, "tunnel": "split", "nohostroute": True, "options": {"nohostroute": "1"}, "peers": []}
FULL = {"in_uci": True, "tunnel": "full", "tunnel_reason": "routed allowed_ips include 0.0.0.0/0", "nohostroute": False,
        "options": {}, "peers": []}
ENDPOINT = {"interface": "wg0", "section": "p0", "address": "203.0.113.10", "pinned_routes": [], "user_routes": []}


# the router the recorded hook was written for (tests/unit/fixtures/sha256sum_hotplug_hook/*_hook_only.txt): wg0, the
# endpoint 203.0.113.10, wan on eth1 preferred, wanb on wwan0 metered
UPLINKS = [{"interface": "wan", "device": "eth1", "preferred": True, "metered": False},
           {"interface": "wanb", "device": "wwan0", "preferred": False, "metered": True}]
RECORDED = "97029a11afe0d1e22a84f892289068096897cb9c43e9184496888a2dc4ed62ae"
OTHER = "0" * 64


def plan_of(tunnel, endpoints, hotplug=True, exists=None, sha256=None, old_exists=False):
    return plan_endpoint_routes({"wg0": tunnel}, endpoints, hotplug=hotplug, uplinks=UPLINKS, preferred_device="eth1",
                                preferred_uplink="wan", hook={"hotplug_hook_exists": exists, "hotplug_hook_sha256": sha256,
                                                              "old_hotplug_hook_exists": old_exists})


@pytest.mark.parametrize("tunnel, hotplug, exists, sha256, installed, removed", [
    (SPLIT, True, True, OTHER, False, True),      # the tunnel became split: the hook left behind goes
    (SPLIT, True, False, None, False, False),     # converged: neither task runs, nothing changes
    (SPLIT, True, None, None, False, True),       # unknown: plain_file state=absent changes nothing where it is absent
    (FULL, True, True, RECORDED, False, False),   # a full tunnel, converged: the router has the text, no write
    (FULL, True, True, OTHER, True, False),       # another text: rewritten
    (FULL, True, False, None, True, False),       # missing: written
    (FULL, True, None, None, True, False),        # unknown: plain_file writes it or finds it the same
    (FULL, False, True, RECORDED, False, True),   # the operator turned it off
    (FULL, False, False, None, False, False),
])
def test_the_hook_tasks_do_what_the_plan_says(tunnel, hotplug, exists, sha256, installed, removed):
    plan = plan_of(tunnel, [ENDPOINT], hotplug, exists, sha256)
    assert (runs(INSTALL, plan, openwrt_mwan3_wg_full_tunnel_hotplug=hotplug),
            runs(REMOVE, plan, openwrt_mwan3_wg_full_tunnel_hotplug=hotplug)) == (installed, removed)
    assert plan["hotplug_hook"]["install"] is installed and plan["hotplug_hook"]["remove"] is removed


def test_the_role_writes_the_plan_s_text_as_it_is():
    """The install task's content is the plan's text, byte for byte (the trailing newline too), not templated again."""
    plan = plan_of(FULL, [ENDPOINT], exists=False)
    content = plan["hotplug_hook"]["content"]
    templar = Templar(loader=DataLoader(), variables=dict(DEFAULTS, **VARS, __openwrt_mwan3_wg_plan=plan))
    args = task(INSTALL)["tunnelfix.fleet.plain_file"]
    assert args["content"] == "{{ __openwrt_mwan3_wg_plan.hotplug_hook.content }}"
    written = templar.template(trust_as_template(args["content"]))
    assert written == content and written.endswith("\nexit 0\n") and "${down##*/}" in written
    assert templar.template(trust_as_template(args["mode"])) == "0755"


@pytest.mark.parametrize("old_exists, removed", [(True, True), (None, True), (False, False)])
def test_the_old_hook_is_removed_only_where_the_read_says_it_may_be(old_exists, removed):
    assert runs(OLD_REMOVE, plan_of(FULL, [ENDPOINT], exists=True, sha256=RECORDED, old_exists=old_exists)) is removed


V6_ENDPOINT = dict(ENDPOINT, address="2001:db8::10")


@pytest.mark.parametrize("endpoints, exists, installed, removed", [
    ([V6_ENDPOINT], True, False, True),              # every endpoint IPv6: nothing for the hook, the one there goes
    ([V6_ENDPOINT], False, False, False),
    ([V6_ENDPOINT, dict(ENDPOINT, section="p1")], False, True, False),   # mixed: installed for the IPv4 endpoint
])
def test_the_hook_tasks_follow_the_plan_for_ipv6_endpoints(endpoints, exists, installed, removed):
    plan = plan_of(FULL, endpoints, exists=exists)
    assert (runs(INSTALL, plan), runs(REMOVE, plan)) == (installed, removed)


def test_the_hook_is_removed_and_installed_where_the_facts_probe_it():
    assert VARS["__openwrt_mwan3_wg_hotplug_path"] == hook.HOOK_PATH == "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint"
    assert VARS["__openwrt_mwan3_wg_old_hotplug_path"] == hook.OLD_HOOK_PATH == "/etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint"
    assert hook.HOOK_PROBE == ["sha256sum", hook.HOOK_PATH, hook.OLD_HOOK_PATH]
    assert task(REMOVE)["tunnelfix.fleet.plain_file"] == {"path": "{{ __openwrt_mwan3_wg_hotplug_path }}", "state": "absent"}
    assert task(OLD_REMOVE)["tunnelfix.fleet.plain_file"] == {"path": "{{ __openwrt_mwan3_wg_old_hotplug_path }}", "state": "absent"}
    assert task(INSTALL)["tunnelfix.fleet.plain_file"]["path"] == "{{ __openwrt_mwan3_wg_hotplug_path }}"
    # removed after the plan and its refusals, before ifup: a failed plan or a refusal stops the role first
    names = [item.get("name") for item in TASKS]
    assert names.index(PLAN) < names.index("Refuse to pick an uplink for the endpoints when every uplink is metered") < names.index(REMOVE)
    assert not (ROLE / "templates").exists()   # the hook's text is the plan's (faults/endpoint_route/hook.py), written once


def test_the_role_hands_its_option_to_the_plan():
    args = task(PLAN)["tunnelfix.fleet.wg_endpoint_route"]
    assert args["full_tunnel_hotplug"] == "{{ openwrt_mwan3_wg_full_tunnel_hotplug }}"
