"""bench/graph_fleet.py's synthetic fleet through the whole registry: the fleet without seeds gives no finding at all,
each seeded graph fault is found on the hosts at both ends of its tunnel and nothing else is (issue 32's done-when)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

import graph_fleet as gf  # noqa: E402
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import registry  # noqa: E402

# the tunnel graph's faults (the registry's entries from faults/tunnel_graph/): the seeds cover each
GRAPH_IDS = {fault.id for fault in registry.FAULTS if "faults/tunnel_graph/" in " ".join(fault.files)}


def _found(views):
    return {(finding["id"], finding["host"], gf.other_end(finding, views)) for finding in registry.find_findings(views)}


def test_every_graph_fault_has_a_seed():
    assert GRAPH_IDS == set(gf.SEEDS)


def test_a_fleet_without_seeds_gives_no_finding():
    views, expected = gf.fleet(3)
    assert len(views) == 33 and expected == set()
    assert registry.find_findings(views) == []


def test_a_quiet_fleet_with_every_address_read_gives_no_finding():
    # the entries of hosts 0-5 of each site quiet for an hour (no keepalive, no traffic), the others fresh, every host's
    # addresses read: each endpoint is on a device of its other end (and where the fresh entries reach it), so
    # endpoint_address_mismatch (and no other rule) finds nothing
    views, _expected = gf.fleet(2)
    for name, view in views.items():
        gf.with_addresses(view, name)
        entries = [live for live, _kept in gf._entries(view)]  # pylint: disable=protected-access
        for live in entries:
            live["handshake_age_s"] = 3600 if int(name[-2:]) < 6 else gf.HANDSHAKE_AGE_S
    assert registry.find_findings(views) == []
    checks = registry.diagnosis(views)["checks"]
    assert {checks[name]["endpoint_address_mismatch"]["status"] for name in views} == {"clear"}
    assert {checks[name]["endpoint_address_mismatch"]["reason"] for name in views} == {None}


def test_every_seed_at_once_is_found_on_both_ends_and_nothing_else():
    views, expected = gf.fleet(len(gf.SEEDS) + 1, seeds=list(gf.SEEDS))
    assert len(views) >= 20
    assert _found(views) == expected
    assert {fault_id for fault_id, _host, _other in expected} == GRAPH_IDS


@pytest.mark.parametrize("seed", sorted(gf.SEEDS))
def test_each_seed_alone(seed):
    views, expected = gf.fleet(2, seeds=[seed])
    assert expected and _found(views) == expected


def test_fake_keys_have_the_shape_of_wireguard_keys():
    key = gf.public_key("s000-h00")
    assert len(key) == 44 and key.endswith("=") and key != gf.public_key("s000-h01")


def test_bad_seed_and_too_small_fleet_are_refused():
    with pytest.raises(ValueError, match="unknown seed"):
        gf.fleet(2, seeds=["no_such"])
    with pytest.raises(ValueError, match="at least 11 hosts"):
        gf.fleet(2, size=5)


def test_the_seeds_whose_finding_has_several_signs_or_cases_are_found_by_the_one_they_seed():
    # a finding still found through another sign would hide a rule that lost the seeded one: the copied [Peer] is found
    # as another host's address (h05's, high), the old key by its endpoint (where the others reach h02), the uci key by the
    # running-key case
    views, _expected = gf.fleet(2, seeds=["endpoint_address_mismatch"])
    (evidence,) = [finding["evidence"] for finding in registry.find_findings(views)]
    assert ("another host's address" in evidence["signs"], evidence["confidence"], evidence["address_of_hosts"]) == (
        True, "high", [gf.host_name(0, 5)])
    views, _expected = gf.fleet(2, seeds=["public_key_mismatch"])
    cases = sorted((finding["host"], finding["evidence"]["case"], finding["evidence"].get("matched_by"))
                   for finding in registry.find_findings(views) if finding["id"] == "public_key_mismatch")
    assert cases == [(gf.host_name(0, 3), "peer_lists_another_key", "endpoint"), (gf.host_name(0, 5), "running_key_not_configured", None)]
