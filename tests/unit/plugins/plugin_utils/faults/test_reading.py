# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fault's facts part (faults/reading.py): every fact a rule reads comes from a reading its fault declares, and
the readings the registry's faults declare are what the facts actions offer, with what each needs."""

import importlib
import re
from dataclasses import replace

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults import readings as shared
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import (
    PLATFORMS, VIEW_KEYS, Read, Reading, choose, platform_readings, public_names)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import BY_ID, FAULTS, readings


def undeclared(fault) -> list:
    """The ``tunnelfix.X``/``openwrt.X`` keys of ``fault.reads`` that no reading of ``fault.facts`` gives on that platform."""
    missing = []
    for key in fault.reads:
        prefix, _dot, rest = key.partition(".")
        if prefix in VIEW_KEYS and not any(reading.name == rest.split(".")[0] and reading.on(VIEW_KEYS[prefix]) is not None
                                           for reading in fault.facts):
            missing.append(key)
    return missing


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.id)
def test_every_fact_a_rule_reads_comes_from_a_reading_its_fault_declares(fault):
    assert undeclared(fault) == []
    assert all(isinstance(reading, Reading) and reading.public for reading in fault.facts)


def test_a_fault_that_reads_what_it_does_not_declare_is_caught():
    fault = BY_ID["udp_gro_forwarding_off"]
    assert undeclared(replace(fault, facts=())) == ["tunnelfix.udp_gro", "openwrt.udp_gro"]
    # a reading of the right name that does not apply on the platform the key names is no answer either
    linux_only = Reading("udp_gro", {"linux": shared.UDP_GRO.on("linux")})
    assert undeclared(replace(fault, facts=(linux_only,))) == ["openwrt.udp_gro"]


def test_the_subsets_are_the_ones_the_modules_document():
    """gather_subset's names are a public interface of tunnel_facts and openwrt_facts: the registry offers the same."""
    assert public_names(readings("linux")) == ("wireguard", "routes", "tcp", "netns", "bridges", "udp_gro", "link_mtu", "link_ipv6",
                                               "link_addresses")
    assert public_names(readings("openwrt")) == ("banip", "mwan3", "wireguard", "bridges", "endpoint_routes", "udp_gro",
                                                 "link_mtu", "link_ipv6", "link_addresses")
    assert set(PLATFORMS) == set(VIEW_KEYS.values())


def test_a_reading_no_fault_declares_is_read_only_as_what_another_needs():
    """routes (Linux): udp_gro needs it (and the PMTU fault reads it). Without those two faults no fault asks for it."""
    others = [fault for fault in FAULTS if shared.UDP_GRO not in fault.facts and shared.ROUTES not in fault.facts]
    assert "routes" not in {reading.name for fault in others for reading in fault.facts}
    assert "routes" not in public_names(platform_readings(others, "linux", shared.ORDER))
    assert "udp_gro" not in public_names(platform_readings(others, "openwrt", shared.ORDER))


@pytest.mark.parametrize("platform, asked, gathered, shown", [
    # routes needs the peers' endpoints, and gives them too (as tunnel_facts always did)
    ("linux", {"routes"}, ["wireguard", "routes"], {"wireguard", "routes"}),
    ("linux", {"udp_gro"}, ["wireguard", "routes", "udp_gro"], {"wireguard", "routes", "udp_gro"}),
    ("linux", {"tcp"}, ["tcp"], {"tcp"}),
    # endpoint_routes uses the uci network and the peers, but gives only the routes (as openwrt_facts always did)
    ("openwrt", {"endpoint_routes"}, ["network", "wireguard", "endpoint_routes"], {"endpoint_routes"}),
    ("openwrt", {"udp_gro"}, ["network", "wireguard", "endpoint_routes", "udp_gro"], {"endpoint_routes", "udp_gro"}),
    ("openwrt", {"wireguard"}, ["network", "wireguard"], {"wireguard"}),
    ("openwrt", set(), [], set()),
])
def test_a_reading_brings_what_it_needs_and_shows_what_it_gives(platform, asked, gathered, shown):
    chosen, names = choose(readings(platform), platform, asked)
    assert [reading.name for reading in chosen] == gathered
    assert names == shown


def _fault(*facts):
    return replace(FAULTS[0], facts=facts)


def test_a_reading_of_a_fault_comes_after_the_shared_ones_and_after_what_it_needs():
    late = Reading("late", {"linux": Read()})
    extra = Reading("extra", {"linux": Read(needs=(late, shared.TCP))})
    got = platform_readings([_fault(extra), _fault(shared.WIREGUARD)], "linux", shared.ORDER)
    assert [reading.name for reading in got] == ["wireguard", "tcp", "late", "extra"]


def test_a_reading_that_does_not_apply_is_left_out():
    assert platform_readings([_fault(shared.TCP, shared.BANIP)], "openwrt", shared.ORDER) == [shared.BANIP]


@pytest.mark.parametrize("facts, message", [
    ((Reading("a", {"linux": Read(needs=(Reading("b", {"openwrt": Read()}),))}),), "b is needed on linux but does not apply"),
    ((Reading("tcp", {"linux": Read()}), shared.TCP), "two different readings are named 'tcp'"),
])
def test_readings_that_cannot_be_gathered_are_refused(facts, message):
    with pytest.raises(ValueError, match=message):
        platform_readings([_fault(*facts)], "linux", shared.ORDER)


def test_a_reading_that_needs_itself_is_refused():
    ring = {}
    first = Reading("first", {"linux": Read(needs=(Reading("second", ring),))})
    ring["linux"] = Read(needs=(first,))
    with pytest.raises(ValueError, match="first needs itself"):
        platform_readings([_fault(first)], "linux")


@pytest.mark.parametrize("module, platform", [("tunnel_facts", "linux"), ("openwrt_facts", "openwrt")])
def test_the_module_docs_offer_every_subset_the_registry_reads(module, platform):
    """A reading a fault adds is a new gather_subset name: the module's documentation must list it (and no other)."""
    doc = yaml.safe_load(importlib.import_module("ansible_collections.tunnelfix.fleet.plugins.modules." + module).DOCUMENTATION)
    first = doc["options"]["gather_subset"]["description"][0]
    assert tuple(re.findall(r"C\((\w+)\)", first)) == ("all",) + public_names(readings(platform))
