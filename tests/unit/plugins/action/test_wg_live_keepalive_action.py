# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""wg_live_keepalive against the fake router: the running keepalive read once, set where it differs, and said in
the diff, the same in check mode (issue 16.3: the live wg set on OpenWrt reported changed with no diff)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.action.wg_live_keepalive import ActionModule, keepalive_diff
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.plan import live_keepalive_plan

HUB = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
OTHER = "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC="
WG_DUMP = "wg show all dump"
DATE = "date +%s"
SET = "wg set wg0 peer %s persistent-keepalive 25" % HUB


@pytest.fixture(name="router")
def fixture_router(load_fixture):
    """A router whose running wg0 has the hub as a peer, keepalive off (recorded dump)."""
    return {DATE: (0, "1796029496\n", ""), WG_DUMP: (0, load_fixture("wg_show_all_dump", "nat_peer_no_keepalive.txt"), "")}


def run(batch_action, router, peers=None, keepalive=25, **kwargs):
    args = {"peers": [{"interface": "wg0", "public_key": HUB}] if peers is None else peers, "persistent_keepalive_s": keepalive}
    action = batch_action(ActionModule, args, router, **kwargs)
    return action, action.run(task_vars={})


def test_a_peer_without_keepalive_is_set_and_the_diff_says_so(batch_action, router):
    action, result = run(batch_action, dict(router, **{SET: (0, "", "")}), diff=True)
    assert not result.get("failed"), result
    assert result["changed"] is True and result["peers"] == [
        {"interface": "wg0", "public_key": HUB, "before": None, "after": 25, "status": "set"}]
    assert result["diff"]["before"] == "wg0 peer %s persistent-keepalive off\n" % HUB
    assert result["diff"]["after"] == "wg0 peer %s persistent-keepalive 25\n" % HUB
    assert action.router.calls() == [DATE, WG_DUMP, SET] and len(action.ran) == 2


def test_check_mode_shows_the_same_plan_and_diff_and_sets_nothing(batch_action, router):
    action, result = run(batch_action, router, check_mode=True, diff=True)
    assert result["changed"] is True and result["peers"][0]["status"] == "set"
    assert result["diff"]["after"] == "wg0 peer %s persistent-keepalive 25\n" % HUB
    assert SET not in action.router.calls() and len(action.ran) == 1


def test_an_unchanged_peer_changes_nothing(batch_action, router):
    action, result = run(batch_action, router, keepalive=0, diff=True)
    assert result["changed"] is False and result["peers"][0]["status"] == "unchanged"
    assert result["diff"] == {"before_header": "wg show (running)", "after_header": "wg show (running, after wg set)",
                              "before": "", "after": ""}
    assert len(action.ran) == 1


def test_a_failed_wg_set_fails_naming_it(batch_action, router):
    _action, result = run(batch_action, dict(router, **{SET: (1, "", "Unable to modify interface: Operation not permitted\n")}))
    assert result["failed"] is True and "wg set wg0 peer" in result["cmd"] and "Operation not permitted" in result["stderr"]


def test_without_wg_nothing_is_set_and_the_note_says_why(batch_action):
    _action, result = run(batch_action, {DATE: (0, "1796029496\n", "")})
    assert result["changed"] is False and result["peers"][0]["status"] == "interface-down"
    assert result["note"].startswith("wg is not installed")


@pytest.mark.parametrize("args, named", [
    ({"peers": [{"interface": "wg 0", "public_key": HUB}], "persistent_keepalive_s": 25}, "peers[0].interface: 'wg 0'"),
    ({"peers": [{"interface": "wg0", "public_key": "not-a-key"}], "persistent_keepalive_s": 25}, "peers[0].public_key: 'not-a-key'"),
    ({"peers": [], "persistent_keepalive_s": 70000}, "persistent_keepalive_s: 70000"),
    ({"peers": [], "persistent_keepalive_s": -1}, "persistent_keepalive_s: -1"),
])
def test_bad_input_fails_naming_the_option_and_value(batch_action, args, named):
    result = batch_action(ActionModule, args, {}).run(task_vars={})
    assert result["failed"] is True and named in result["msg"]


def test_the_plan_on_both_sides_of_each_decision():
    interfaces = {"wg0": {"peers": [{"public_key": HUB, "persistent_keepalive_s": 25}, {"public_key": OTHER, "persistent_keepalive_s": None}]}}
    peers = [{"interface": "wg0", "public_key": HUB}, {"interface": "wg0", "public_key": OTHER},
             {"interface": "wg0", "public_key": "D" * 43 + "="}, {"interface": "wg1", "public_key": HUB}]
    plan = live_keepalive_plan(interfaces, peers, 25)
    assert [entry["status"] for entry in plan] == ["unchanged", "set", "peer-not-live", "interface-down"]
    assert [entry["status"] for entry in live_keepalive_plan(interfaces, peers[:2], 0)] == ["set", "unchanged"]
    assert live_keepalive_plan(None, peers[:1], 25)[0]["status"] == "interface-down"
    assert keepalive_diff(plan)["before"] == "wg0 peer %s persistent-keepalive off\n" % OTHER
