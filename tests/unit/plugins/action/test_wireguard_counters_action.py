# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""wireguard_counters against the fake router (dash, bash, BusyBox): the second reading of the counters is the facts'
own command, run once, parsed on the controller; keys never returned; no wg is a note, not a failure."""

from ansible_collections.tunnelfix.fleet.plugins.action.wireguard_counters import ActionModule, counters_of

DATE = "date +%s"
WG_DUMP = "wg show all dump"
RESPONDER = "R" * 43 + "="


def _router(load_fixture, name):
    """The recorded output (the target's clock, then the redacted dump) as the fake router's two commands."""
    text = load_fixture("wg_dump_redacted", name)
    clock, _sep, dump = text.partition("\n")
    return {DATE: (0, clock + "\n", ""), WG_DUMP: (0, dump, "")}


def test_the_counters_of_every_entry_with_the_targets_clock(batch_action, load_fixture):
    action = batch_action(ActionModule, {"phase": "before"}, _router(load_fixture, "6a_drop_a_to_b_a_2.txt"))
    result = action.run(task_vars={})
    assert not result.get("failed"), result
    assert result == {"changed": False, "wg_installed": True, "sampled_at_epoch": 1796513405, "note": None, "phase": "before",
                      "interfaces": {"tfpska0": {RESPONDER: {"rx_bytes": 0, "tx_bytes": 444, "handshake_age_s": None}}}}
    assert action.router.calls() == [DATE, WG_DUMP] and len(action.ran) == 1   # one command, no batch of the facts


def test_a_handshake_age_is_read_against_the_targets_clock(batch_action, load_fixture):
    result = batch_action(ActionModule, {}, _router(load_fixture, "1_control_b_2.txt")).run(task_vars={})
    (entries,) = result["interfaces"].values()
    assert list(entries.values()) == [{"rx_bytes": 3604, "tx_bytes": 3548, "handshake_age_s": 1796513317 - 1796513303}]
    assert "phase" not in result


def test_without_wg_it_says_so_and_does_not_fail(batch_action):
    result = batch_action(ActionModule, {}, {DATE: (0, "1796513405\n", "")}).run(task_vars={})
    assert not result.get("failed") and (result["wg_installed"], result["interfaces"], result["sampled_at_epoch"]) == (False, {}, None)
    assert result["note"].startswith("wg is not installed")


def test_no_key_but_the_public_ones_is_returned():
    interfaces = {"wg0": {"public_key": "H" * 43 + "=", "has_private_key": True, "peers": [
        {"public_key": RESPONDER, "has_preshared_key": True, "rx_bytes": 1, "tx_bytes": 2, "handshake_age_s": 3, "endpoint": "x:1"},
        {"public_key": None, "rx_bytes": 5}]}}
    assert counters_of(interfaces) == {"wg0": {RESPONDER: {"rx_bytes": 1, "tx_bytes": 2, "handshake_age_s": 3}}}
    assert counters_of(None) == {}


def test_an_unknown_option_fails_naming_it(batch_action):
    result = batch_action(ActionModule, {"label": "x"}, {}).run(task_vars={})
    assert result["failed"] is True and "label" in result["msg"]
