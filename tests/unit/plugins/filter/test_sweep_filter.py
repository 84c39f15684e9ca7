# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sweep filters as Jinja sees them: values, and bad input as a filter error naming the filter."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.sweep import FilterModule
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.iperf3 import parse_iperf3_json

F = FilterModule().filters()


def test_the_four_filters_chain_like_the_role(load_fixture):
    plan = F["sweep_plan"]("40M", [], 4)
    assert [test["name"] for test in plan][:2] == ["tcp_single_upload", "tcp_single_download"]
    recorded = {"tcp_single_upload": "tcp_forward_3.12.txt", "tcp_single_download": "tcp_reverse_3.12.txt"}
    results = [F["sweep_result"](test, parse_iperf3_json(load_fixture("iperf3_json", recorded[test["name"]]))
                                 if test["name"] in recorded else None) for test in plan]
    assert [entry["valid"] for entry in results[:3]] == [True, True, False]
    conclusion = F["sweep_conclusion"](results, "700M")
    assert conclusion["verdict"] == "path_limit" and len(conclusion["excluded"]) == len(plan) - 2
    record = {"hub": "hub", "path_bits_per_second": 700e6, "results": results, "conclusion": conclusion}
    rows = F["sweep_rows"]({"peer": record}, {})
    assert rows[0]["before"] == "633 Mbit/s (24982 retransmits, bbr)" and rows[2]["before"] == "invalid: not run"


@pytest.mark.parametrize("name, args, text", [
    ("sweep_plan", ("40M", [], 1), "parallel_streams must be 2-128, got 1"),
    ("sweep_plan", ("40M", ["10X"], 4), "udp_rates[0] must be at least 1 bit per second"),
    ("sweep_plan", ("fast", [], 4), "path_bits_per_second must be bits per second"),
    ("sweep_result", ({"name": "x"}, {}), "test must be a sweep_plan entry"),
    ("sweep_result", ({"name": "x", "protocol": "tcp", "reverse": False, "parallel": 1, "bitrate": None}, []),
     "iperf3_result of x must be the iperf3 action's result"),
    ("sweep_conclusion", ("x", None), "results must be a list of sweep_result entries"),
    ("sweep_conclusion", ([], "0"), "path_bits_per_second must be above 0"),
    ("sweep_rows", ({}, "x"), "after must be a dict {host: sweep record}"),
    ("sweep_rows", ({"peer": {"results": []}}, {}, {"peer": "fast"}), "path_by_host['peer'] must be bits per second"),
])
def test_bad_input_is_a_filter_error_naming_the_filter(name, args, text):
    with pytest.raises(AnsibleFilterError) as err:
        F[name](*args)
    assert str(err.value).startswith(name + ": ") and text in str(err.value)
