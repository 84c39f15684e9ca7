# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU measuring step: every ladder in one framed script, the split of its output into the record the rule reads."""

import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.ladder import ladder_script
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.measure import (
    MAX_PROBES_PER_LADDER, check_options, invalid_ladder, ladders, measure_record, measure_script, paced_interval_ms, role_option_errors,
    task_timeout_s)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import ladder_targets
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.rule import valid
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import diagnosis, view_records
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import host_view as bare_view
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.pause import pause_snippet
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import MARKER
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.coverage import finding_lines
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.html import render_report_html
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.markdown import findings_table

NONCE = "0123456789abcdef0123456789abcdef"


def framed(blocks, end=True):
    """The script's stdout for ``{block name: ladder output}``, framed as the script frames it."""
    out = []
    for name, text in blocks.items():
        out.append("%s %s begin %s\n%s\n%s %s stderr\n\n%s %s rc 0\n" % (MARKER, NONCE, name, text, MARKER, NONCE, MARKER, NONCE))
    return "".join(out) + ("%s %s end\n" % (MARKER, NONCE) if end else "")


def two_peer_view(pmtu):
    """A hub-like Linux host: wg0 with two peers, each with an endpoint and a /32 tunnel address."""
    view = pmtu.linux_view(allowed_ips=("10.77.0.2/32",))
    view["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"].append(
        {"public_key": pmtu.OTHER_KEY, "endpoint_host": "198.51.100.7", "allowed_ips": ["10.77.0.3/32"]})
    view["tunnelfix"]["routes"]["endpoints"]["198.51.100.7"] = {"dev": "eth0", "gateway": "192.0.2.1"}
    return view


def test_the_script_holds_every_ladder_in_order_each_in_its_own_framed_subshell(pmtu):
    targets = ladder_targets(two_peer_view(pmtu))
    script = measure_script(targets, NONCE, interval_ms=250, timeout_s=2, attempts=3)
    names = re.findall(r"printf '%s begin %s\\n' \"\$M\" '([^']+)'", script)
    assert names == ["0 outer", "0 inner", "1 outer", "1 inner"]
    where = []
    for _name, index, side, spec in ladders(targets):
        snippet = ladder_script(spec["target"], spec["family"], spec["low"], spec["high"], 250, 2, 3, "ping")
        assert "(\n%s\n) </dev/null 2>&1" % snippet.strip("\n") in script
        where.append(script.index(snippet.strip("\n")))
    assert where == sorted(where)
    assert [spec["target"] for *_rest, spec in ladders(targets)] == ["10.198.2.2", "10.77.0.2", "198.51.100.7", "10.77.0.3"]
    # the pause between two ladders (not before the first): 250 ms, whole seconds rounded up where sleep takes no fraction
    assert script.count("\nnap_\n") == 3 and script.split("\n", 1)[1].startswith(pause_snippet(250))   # the one pause snippet
    assert script.startswith("M='%s %s'\n" % (MARKER, NONCE)) and script.endswith("printf '%s end\\n' \"$M\"\n")


def test_no_pause_is_made_at_interval_0_and_nothing_runs_without_a_ladder(pmtu):
    assert "\nnap_\n" not in measure_script(ladder_targets(two_peer_view(pmtu)), NONCE, interval_ms=0)
    no_mtu = pmtu.linux_view()
    no_mtu["tunnelfix"]["link_mtu"] = {"devices": None, "note": "ip failed"}
    targets = ladder_targets(no_mtu, pmtu.HUB_ADDRESS)
    assert targets and measure_script(targets, NONCE) == ""
    record = measure_record(targets, "", NONCE, "before", 200)
    assert record["ladders_run"] == 0 and record["tunnels"][0]["outer"] is None
    assert "MTU of the link" in record["tunnels"][0]["outer_note"]


@pytest.mark.parametrize("interval_ms", [1, 999, 1000, 1001, 10000])
def test_the_pause_between_ladders_is_measure_pauses_snippet(pmtu, interval_ms):
    """One snippet for every prober (measure/pause.py): usleep, else a fractional sleep, else whole seconds rounded up."""
    script = measure_script(ladder_targets(pmtu.linux_view(), pmtu.HUB_ADDRESS), NONCE, interval_ms=interval_ms)
    assert script.startswith("M='%s %s'\n%s" % (MARKER, NONCE, pause_snippet(interval_ms)))


def banip_view(pmtu, limit):
    """An OpenWrt router whose loaded banIP rule limits ICMP to ``limit``/s (None: no banIP)."""
    view = pmtu.openwrt_view()
    rule = {"rate_per_second": limit, "burst_packets": 5}
    view["openwrt"]["banip"] = None if limit is None else {"installed": True, "nft_table_loaded": True, "icmp_limit_rule": rule}
    return view


@pytest.mark.parametrize("limit, interval_ms, paced", [(None, 200, 200), (25, 200, 200), (5, 200, 1000), (2, 200, 2500), (2, 3000, 3000)])
def test_the_task_timeout_is_sized_from_the_pause_really_used(pmtu, limit, interval_ms, paced):
    """The role's task timeout: each ladder that runs x 20 sizes x attempts x (timeout + pause in whole seconds + 1), + 60,
    with the pause the action uses (longer under a low banIP limit), not the role's interval alone."""
    view = banip_view(pmtu, limit)
    assert paced_interval_ms(view, interval_ms) == paced
    count = len(ladders(ladder_targets(view, pmtu.HUB_ADDRESS)))
    assert count == 2
    assert task_timeout_s(view, pmtu.HUB_ADDRESS, interval_ms, 1, 2) == 60 + count * MAX_PROBES_PER_LADDER * 2 * (1 + -(-paced // 1000) + 1)


def test_the_task_timeout_counts_the_ladders_that_run(pmtu):
    assert task_timeout_s(two_peer_view(pmtu), None, 200, 1, 1) == 60 + 4 * 20 * 1 * 3
    assert task_timeout_s(pmtu.linux_view(), None, 200, 1, 1) == 60 + 1 * 20 * 1 * 3   # no far address: the outer ladder only
    with pytest.raises(ValueError, match="interval_ms must be a whole number 0-10000, got 10001"):
        task_timeout_s(pmtu.linux_view(), None, 10001, 1, 1)


def test_max_probes_per_ladder_bounds_a_ladder_over_the_widest_path():
    """16 halvings of up to 65507 bytes, low, high and the recheck: 19 sizes at most, MAX_PROBES_PER_LADDER 20."""
    assert MAX_PROBES_PER_LADDER >= 2 + (65507).bit_length() + 1


@pytest.mark.parametrize("interval_ms, timeout_s, attempts, ping_command, error", [
    (0, 1, 1, "ping", None), (10000, 60, 5, "busybox ping", None),
    (-1, 1, 1, "ping", "interval_ms must be a whole number 0-10000, got -1"),
    (10001, 1, 1, "ping", "interval_ms must be a whole number 0-10000, got 10001"),
    (200, 0, 1, "ping", "timeout_s must be a whole number 1-60, got 0"),
    (200, 61, 1, "ping", "timeout_s must be a whole number 1-60, got 61"),
    (200, 1, 0, "ping", "attempts must be a whole number 1-5, got 0"),
    (200, 1, 6, "ping", "attempts must be a whole number 1-5, got 6"),
    (200, 1, True, "ping", "attempts must be a whole number 1-5, got True"),
    (200.0, 1, 1, "ping", "interval_ms must be a whole number 0-10000, got 200.0"),
    (200, 1, 1, "/bin/ping", "ping_command must be one of ping, busybox ping, got '/bin/ping'"),
])
def test_the_options_are_checked_on_both_sides_of_each_bound(interval_ms, timeout_s, attempts, ping_command, error):
    if error is None:
        check_options(interval_ms, timeout_s, attempts, ping_command)
        return
    with pytest.raises(ValueError) as raised:
        check_options(interval_ms, timeout_s, attempts, ping_command)
    assert str(raised.value) == error


@pytest.mark.parametrize("kwargs, named", [
    ({"interval_ms": 10001}, "interval_ms"), ({"timeout_s": 0}, "timeout_s"), ({"attempts": 6}, "attempts"),
    ({"ping_command": "ping; reboot"}, "ping_command"),
])
def test_bad_arguments_are_refused_naming_them(pmtu, kwargs, named):
    with pytest.raises(ValueError, match=named):
        measure_script(ladder_targets(pmtu.linux_view(), pmtu.HUB_ADDRESS), NONCE, **kwargs)


def test_a_recorded_combined_output_splits_into_the_record_the_rule_reads(pmtu, load_fixture):
    view = pmtu.linux_view()
    targets = ladder_targets(view, pmtu.HUB_ADDRESS)
    inner = pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1420, 1420)
    stdout = framed({"0 outer": load_fixture("pmtu_ladder", "iputils_v4_black_hole_1400.txt"), "0 inner": inner})
    record = measure_record(targets, stdout, NONCE, "before", 200)
    assert (record["phase"], record["interval_ms"], record["ladders_run"]) == ("before", 200, 2)
    (entry,) = record["tunnels"]
    assert (entry["interface"], entry["endpoint"], entry["outer_family"], entry["inner_target"]) == ("wg0", "10.198.2.2", 4, "10.77.0.1")
    assert entry["outer"]["path_mtu_bytes"] == 1400 and entry["outer"]["invalid"] is None
    assert entry["inner"]["path_mtu_bytes"] == 1420 and entry["inner"]["at_high_bound"] is True
    view["path_mtu"] = record
    checks = diagnosis({"peer": view})
    assert checks["checks"]["peer"]["path_mtu_black_hole"] == {"status": "found", "reason": None}
    (finding,) = [f for f in checks["findings"] if f["id"] == "path_mtu_black_hole"]
    evidence = finding["evidence"]
    assert (evidence["tunnel_mtu_bytes"], evidence["outer_path_mtu_bytes"], evidence["set_mtu_bytes"]) == (1420, 1400, 1340)


@pytest.mark.parametrize("fixture", ["iputils_v4_black_hole_1400.txt", "busybox_v4_black_hole_1400.txt",
                                     "iputils_v4_frag_needed_1400.txt", "busybox_v4_frag_needed_1400.txt"])
def test_a_tunnel_that_fits_the_measured_path_is_clear(pmtu, load_fixture, fixture):
    """1340 + 60 = 1400: the largest packet the path carries; one byte more would fire (test_rule pins that side)."""
    view = pmtu.linux_view(tunnel_mtu=1340)
    targets = ladder_targets(view, pmtu.HUB_ADDRESS)
    stdout = framed({"0 outer": load_fixture("pmtu_ladder", fixture), "0 inner": pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1340, 1340)})
    view["path_mtu"] = measure_record(targets, stdout, NONCE, "after", 200)
    assert diagnosis({"peer": view})["checks"]["peer"]["path_mtu_black_hole"] == {"status": "clear", "reason": None}


def test_the_reports_show_the_measured_sizes(pmtu, load_fixture):
    """The console's line per host (its first 100 characters of evidence), the HTML's explanation and evidence, the Markdown row."""
    view = pmtu.linux_view()
    targets = ladder_targets(view, pmtu.HUB_ADDRESS)
    view["path_mtu"] = measure_record(targets, framed({
        "0 outer": load_fixture("pmtu_ladder", "busybox_v4_black_hole_1400.txt"),
        "0 inner": pmtu.path_ladder(4, pmtu.HUB_ADDRESS, 1340, 1420)}), NONCE, "before", 200)
    findings = [f for f in diagnosis({"peer": view})["findings"] if f["id"] == "path_mtu_black_hole"]
    console = "\n".join(finding_lines(findings))
    assert "  peer: interface=wg0 tunnel_mtu_bytes=1420 outer_path_mtu_bytes=1400 set_mtu_bytes=1340 inner_path_mtu_b" in console
    assert "was 1400 bytes, and a full-size tunnel packet leaves as 1480" in console   # the explanation, once per finding id
    html = render_report_html([], findings=findings)
    assert "the largest packet that got through with don&#x27;t-fragment set was 1400 bytes" in html
    assert "&quot;outer_path_mtu_bytes&quot;: 1400" in html and "&quot;set_mtu_bytes&quot;: 1340" in html
    assert "| peer | high | path_mtu_black_hole |" in findings_table(findings)


def host_view(host_vars, phase):
    """The view as the filter builds it: with the records the registry's faults declare (this fault's among them)."""
    return bare_view(host_vars, phase, view_records())


def test_the_record_reaches_the_rule_through_the_host_variable_of_its_phase(pmtu, load_fixture):
    view = pmtu.linux_view()
    targets = ladder_targets(view, pmtu.HUB_ADDRESS)
    record = measure_record(targets, framed({"0 outer": load_fixture("pmtu_ladder", "busybox_v4_black_hole_1400.txt")}),
                            NONCE, "before", 200)
    host_vars = {"tunnelfix_gathered_facts": {"ansible_facts": {"tunnelfix": view["tunnelfix"]}}, "tunnelfix_tunnel_hub": "hub",
                 "path_mtu_measure_record": record}
    assert host_view(host_vars, "before")["path_mtu"] is record and host_view(host_vars, "after")["path_mtu"] is None
    assert diagnosis({"peer": host_view(host_vars, "before")})["checks"]["peer"]["path_mtu_black_hole"]["status"] == "found"


def test_an_unreachable_peer_gives_an_invalid_ladder_and_no_finding(pmtu, load_fixture):
    view = pmtu.linux_view(endpoint="10.198.2.9")
    targets = ladder_targets(view, pmtu.HUB_ADDRESS)
    stdout = framed({"0 outer": load_fixture("pmtu_ladder", "iputils_v4_unreachable_peer.txt"),
                     "0 inner": "ladder tool=iputils family=4 target=10.77.0.1 low=548 high=1392 interval_ms=200 attempts=2\n"
                                "probe 548 failed attempts=2\nresult none\n"})
    record = measure_record(targets, stdout, NONCE, "before", 200)
    (entry,) = record["tunnels"]
    assert not valid(entry["outer"]) and "unreachable" in entry["outer"]["invalid"]
    assert not valid(entry["inner"]) and entry["inner"]["pings_sent"] == 2
    view["path_mtu"] = record
    check = diagnosis({"peer": view})["checks"]["peer"]["path_mtu_black_hole"]
    assert check["status"] == "not_checked" and "unreachable" in check["reason"]


@pytest.mark.parametrize("blocks, end, reason", [
    ({"0 outer": "ladder tool=iputils family=4 target=10.198.2.2 low=548 high=1472 interval_ms=200 attempts=2\n"
                 "sh: 1: cannot open /proc/net/snmp: No such file\nresult none\n"}, True,
     "cannot read the ladder to 10.198.2.2 (rc=0): PMTU ladder output line 2 is not a probe"),
    ({"0 outer": "ladder tool=iputils family=4 target=10.198.2.9 low=548 high=1472 interval_ms=200 attempts=2\n"
                 "probe 548 passed attempts=1\nresult largest=548\n"}, True,
     "the ladder to 10.198.2.2 printed the header of another target (10.198.2.9, IPv4)"),
    ({"0 outer": "ladder tool=iputils family=6 target=10.198.2.2 low=548 high=1472 interval_ms=200 attempts=2\n"
                 "probe 548 passed attempts=1\nresult largest=548\n"}, True,
     "the ladder to 10.198.2.2 printed the header of another target (10.198.2.2, IPv6)"),
    # another ladder's bounds (fails before: read as a 9000-byte path over the 1500-byte uplink the facts know)
    ({"0 outer": "ladder tool=iputils family=4 target=10.198.2.2 low=548 high=8972 interval_ms=200 attempts=2\n"
                 "probe 548 passed attempts=1\nprobe 8972 passed attempts=1\nresult largest=8972\n"}, True,
     "the ladder to 10.198.2.2 printed a high bound of 8972 payload bytes, above its link's (1472)"),
    ({}, True, "the ladder to 10.198.2.2 printed nothing"),
    ({"0 outer": "ladder tool=iputils family=4 target=10.198.2.2 low=548 high=1472 interval_ms=200 attempts=2\n"}, False,
     "the ladders' output cannot be split (batch output is truncated"),
])
def test_output_that_cannot_be_read_makes_that_ladder_invalid_never_an_exception(pmtu, blocks, end, reason):
    targets = ladder_targets(pmtu.linux_view(), pmtu.HUB_ADDRESS)
    (entry,) = measure_record(targets, framed(blocks, end), NONCE, "before", 200)["tunnels"]
    assert entry["outer"]["invalid"].startswith(reason)
    assert entry["outer"]["path_mtu_bytes"] is None and entry["outer"]["probes"] == [] and not valid(entry["outer"])


def test_the_invalid_ladder_has_the_parsed_shape():
    spec = {"target": "10.0.0.1", "family": 4, "low": 548, "high": 1472}
    assert invalid_ladder(spec, "why") == {
        "tool": None, "family": 4, "target": "10.0.0.1", "low_payload_bytes": 548, "high_payload_bytes": 1472, "interval_ms": None,
        "largest_passing_payload_bytes": None, "path_mtu_bytes": None, "at_high_bound": False, "reported_mtu_bytes": None,
        "pings_sent": None, "probes": [], "invalid": "why"}


GOOD = {"path_mtu_measure_phase": "before", "path_mtu_measure_interval_ms": 200, "path_mtu_measure_timeout_s": 1,
        "path_mtu_measure_attempts": 2}


@pytest.mark.parametrize("change, errors", [
    ({}, []),
    ({"path_mtu_measure_interval_ms": "0", "path_mtu_measure_timeout_s": "60", "path_mtu_measure_attempts": 5}, []),
    ({"path_mtu_measure_interval_ms": 10000, "path_mtu_measure_timeout_s": 1, "path_mtu_measure_attempts": 1}, []),
    ({"path_mtu_measure_interval_ms": 10001}, ['path_mtu_measure_interval_ms must be 0-10000 ms between two pings, got "10001"']),
    ({"path_mtu_measure_interval_ms": "-1"}, ['path_mtu_measure_interval_ms must be 0-10000 ms between two pings, got "-1"']),
    ({"path_mtu_measure_timeout_s": 0}, ['path_mtu_measure_timeout_s must be 1-60 seconds per ping, got "0"']),
    ({"path_mtu_measure_timeout_s": 61}, ['path_mtu_measure_timeout_s must be 1-60 seconds per ping, got "61"']),
    ({"path_mtu_measure_attempts": 0}, ['path_mtu_measure_attempts must be 1-5 pings per size while they are lost, got "0"']),
    ({"path_mtu_measure_attempts": 6}, ['path_mtu_measure_attempts must be 1-5 pings per size while they are lost, got "6"']),
    ({"path_mtu_measure_attempts": True}, ['path_mtu_measure_attempts must be 1-5 pings per size while they are lost, got "True"']),
    ({"path_mtu_measure_attempts": "two"}, ['path_mtu_measure_attempts must be 1-5 pings per size while they are lost, got "two"']),
    ({"path_mtu_measure_phase": "later"}, ['path_mtu_measure_phase must be before or after (diagnose\'s and verify\'s), got "later"']),
    ({"path_mtu_measure_phase": None, "path_mtu_measure_timeout_s": "x"},
     ['path_mtu_measure_timeout_s must be 1-60 seconds per ping, got "x"',
      'path_mtu_measure_phase must be before or after (diagnose\'s and verify\'s), got "None"']),
])
def test_role_options_are_checked_on_both_sides_of_each_bound(change, errors):
    assert role_option_errors(dict(GOOD, **change)) == errors


@pytest.mark.parametrize("interval_ms", [10001, -1, "2x", None])
def test_a_bad_interval_is_named_as_the_roles_option_not_the_limiters_argument(pmtu, interval_ms):
    """The role's user sets interval_ms: the error names it, not banip_icmp.limiter's wanted_interval_ms."""
    with pytest.raises(ValueError) as err:
        paced_interval_ms(banip_view(pmtu, 5), interval_ms)
    assert str(err.value) == "interval_ms must be a whole number 0-10000, got %r" % (interval_ms,)


def test_a_ladder_above_its_links_bound_is_named_whole(pmtu):
    targets = ladder_targets(pmtu.linux_view(), pmtu.HUB_ADDRESS)
    stdout = framed({"0 outer": "ladder tool=busybox family=4 target=10.198.2.2 low=548 high=1473 interval_ms=200 attempts=2\n"
                                "probe 548 passed attempts=1\nprobe 1473 passed attempts=1\nresult largest=1473\n"})
    (entry,) = measure_record(targets, stdout, NONCE, "before", 200)["tunnels"]
    assert entry["outer"] == invalid_ladder(targets[0]["outer"], (
        "the ladder to 10.198.2.2 printed a high bound of 1473 payload bytes, above its link's (1472): a path MTU above the "
        "link MTU cannot be true"))
    assert entry["inner"] == invalid_ladder(targets[0]["inner"], "the ladder to 10.77.0.1 printed nothing (the remote script "
                                                                 "stopped before it)")


def test_the_script_runs_the_ping_command_given_and_the_timeout_rounds_a_pause_up(pmtu):
    script = measure_script(ladder_targets(pmtu.linux_view(), pmtu.HUB_ADDRESS), NONCE, ping_command="busybox ping")
    assert script.count('ping_() { LC_ALL=C busybox ping "$@"; }') == 2
    # 1001 ms: a pause of 2 whole seconds where sleep takes no fraction
    assert task_timeout_s(pmtu.linux_view(), None, 1001, 1, 1) == 60 + 1 * 20 * 1 * (1 + 2 + 1)


def test_a_phase_that_is_no_text_is_named_as_its_text():
    assert role_option_errors(dict(GOOD, path_mtu_measure_phase=5)) == [
        'path_mtu_measure_phase must be before or after (diagnose\'s and verify\'s), got "5"']
