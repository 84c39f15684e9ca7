# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""tcp_fix_undone_at_boot: a sysctl file the boot applies after linux_bbr_fq's drop-in sets its keys otherwise.

The lab's fixed peer (fixtures/host_views/lab_after.json) with the sysctl files the facts now read
(fixtures/sysctl_boot_files): the planted 99-zz-local.conf is found, with file and line; each decision
on both sides.
"""

import copy
import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import BY_ID, diagnosis, find_findings, finding_outcomes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tcp_fix_undone_at_boot.rule import (
    DROPIN, boot_coverage, undone_at_next_boot)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import (
    parse_sysctl_boot_files, settings_by_file, sysctl_boot)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import PERSISTED_KEYS

UNDONE = BY_ID["tcp_fix_undone_at_boot"]


def with_boot(view, text):
    """``view`` with the tcp facts tunnel_facts now reads from SYSCTL_BOOT_FILES' output ``text``."""
    view = copy.deepcopy(view)
    listing = parse_sysctl_boot_files(text)
    view["tunnelfix"]["tcp"].update(sysctl_boot=sysctl_boot(listing), sysctl_dropins=settings_by_file(listing, PERSISTED_KEYS))
    return view


@pytest.fixture(name="lab")
def fixture_lab(load_fixture):
    return json.loads(load_fixture("host_views", "lab_after.json"))


@pytest.fixture(name="planted")
def fixture_planted(lab, load_fixture):
    return with_boot(lab["peer"], load_fixture("sysctl_boot_files", "lab_peer_after_fix_local_cubic.txt"))


def test_the_later_file_with_cubic_is_found_with_file_and_line(lab, planted):
    views = dict(lab, peer=planted)
    found = [finding for finding in find_findings(views) if finding["id"] == UNDONE.id]
    assert [(finding["host"], finding["evidence"]) for finding in found] == [("peer", {
        "sysctl": "net.ipv4.tcp_congestion_control", "fix_value": "bbr", "fix_file": DROPIN, "boot_value": "cubic",
        "file": "/etc/sysctl.d/99-zz-local.conf", "line": 2, "applied_by": "systemd-sysctl"})]
    assert found[0]["fix_role"] is None and found[0]["severity"] == "medium"
    assert "/etc/sysctl.d/99-zz-local.conf line 2 sets net.ipv4.tcp_congestion_control = cubic" in found[0]["explanation"]
    assert diagnosis(views)["checks"]["peer"][UNDONE.id] == {"status": "found", "reason": None}


def test_the_lab_own_earlier_cubic_file_is_no_finding(lab, load_fixture):
    """10-tunnelfix-lab.conf sets cubic too, but before the drop-in: the drop-in wins at boot."""
    text = load_fixture("sysctl_boot_files", "lab_peer_after_fix_local_cubic.txt")
    text = text.replace("F\t/etc/sysctl.d/99-zz-local.conf\t>\nL\t2\t1\tnet.ipv4.tcp_congestion_control = cubic\n", "")
    view = with_boot(lab["peer"], text)
    assert undone_at_next_boot("peer", view, {}) == []
    assert boot_coverage("peer", view, {}) is None      # judged on everything: clear


@pytest.mark.parametrize("later, found", [
    ("net.ipv4.tcp_congestion_control = cubic", True),
    ("net.ipv4.tcp_congestion_control = bbr", False),                  # the same value: nothing undone
    ("net.ipv4.tcp_congestion_control = cubic # old", False),          # refused at boot: sets nothing (a warning)
    ("-net.ipv4.tcp_congestion_control = cubic", True),                # "-" only ignores a failure
    ("net.ipv4.tcp_rmem = 4096 87380 6291456", True),
    ("net.ipv4.tcp_rmem = 4096  131072\t33554432", False),             # blanks aside, the same
    ("net.core.default_qdisc = fq_codel", False),                      # not in this container's drop-in
])
def test_what_a_later_line_undoes(lab, load_fixture, later, found):
    text = load_fixture("sysctl_boot_files", "lab_peer_after_fix_local_cubic.txt").replace(
        "L\t2\t1\tnet.ipv4.tcp_congestion_control = cubic\nF\t/usr/lib", "L\t2\t1\t%s\nF\t/usr/lib" % later)
    assert bool(undone_at_next_boot("peer", with_boot(lab["peer"], text), {})) is found


def test_sysctl_conf_through_its_link(lab, load_fixture):
    view = with_boot(lab["peer"], load_fixture("sysctl_boot_files", "debian12_sysctl_conf_comments_and_typo.txt"))
    [(evidence, _text)] = undone_at_next_boot("peer", view, {})
    assert (evidence["sysctl"], evidence["boot_value"], evidence["file"], evidence["line"]) == (
        "net.core.netdev_max_backlog", "16384", "/etc/sysctl.d/99-sysctl.conf", 71)


def test_one_finding_per_key_told_apart_by_the_key(lab, load_fixture):
    text = load_fixture("sysctl_boot_files", "lab_peer_after_fix_local_cubic.txt").replace(
        "L\t2\t1\tnet.ipv4.tcp_congestion_control = cubic\nF\t/usr/lib",
        "L\t2\t1\tnet.ipv4.tcp_congestion_control = cubic\nL\t3\t1\tnet.ipv4.tcp_wmem = 4096 16384 4194304\nF\t/usr/lib")
    found = undone_at_next_boot("peer", with_boot(lab["peer"], text), {})
    assert sorted(UNDONE.subject(evidence) for evidence, _text in found) == ["net.ipv4.tcp_congestion_control", "net.ipv4.tcp_wmem"]


def test_verify_pairs_it_fixed_when_the_file_is_gone(lab, planted, load_fixture):
    before = [f for f in find_findings(dict(lab, peer=planted)) if f["id"] == UNDONE.id]
    fixed_view = with_boot(lab["peer"], load_fixture("sysctl_boot_files", "lab_peer_after_fix_local_cubic.txt").replace(
        "F\t/etc/sysctl.d/99-zz-local.conf\t>\nL\t2\t1\tnet.ipv4.tcp_congestion_control = cubic\n", ""))
    after_views = dict(lab, peer=fixed_view)
    [outcome] = finding_outcomes(before, find_findings(after_views), after_views)
    assert (outcome["id"], outcome["outcome"]) == (UNDONE.id, "fixed")


@pytest.mark.parametrize("tcp_update, reason", [
    ({"sysctl_boot": None}, "the sysctl files read at boot were not read (facts of an older collection)"),
    ({"sysctl_dropins": None}, "the sysctl files read at boot were not read (facts of an older collection)"),
    ({"sysctl_boot": {"effective": "junk"}}, "the sysctl files read at boot were not read (facts of an older collection)"),
])
def test_without_the_boot_facts_it_is_not_checked(planted, tcp_update, reason):
    planted["tunnelfix"]["tcp"].update(tcp_update)
    assert undone_at_next_boot("peer", planted, {}) == []
    assert boot_coverage("peer", planted, {}) == ("not_checked", reason)


def test_a_router_is_not_checked_and_a_host_without_the_drop_in_has_nothing_to_undo(planted):
    router = {"groups": ["tunnelfix_openwrt"], "openwrt": {}}
    assert boot_coverage("owrt", router, {}) == (
        "not_checked", "the sysctl files read at boot were not read (openwrt_facts does not read them)")
    del planted["tunnelfix"]["tcp"]["sysctl_dropins"][DROPIN]
    assert undone_at_next_boot("peer", planted, {}) == []
    assert boot_coverage("peer", planted, {}) == (
        "clear", "does not apply: no %s here: no TCP fix persisted that a later file could undo" % DROPIN)
