"""before_after_rows / markdown_table."""
from ansible_collections.tunnelfix.fleet.plugins.module_utils._report import before_after_rows, markdown_table

BEFORE = {"peer": {"hub": "hub", "idle_s": 15, "ping": {"loss_percent": 100.0},
                   "iperf3": {"bits_per_second": 3.1e6, "retransmits": 412, "sender_congestion_control": "cubic"}}}
AFTER = {"peer": {"hub": "hub", "idle_s": 15, "ping": {"loss_percent": 0.0},
                  "iperf3": {"bits_per_second": 37.9e6, "retransmits": 80, "sender_congestion_control": "bbr"}}}


def test_rows_pair_before_and_after():
    rows = before_after_rows(BEFORE, AFTER, 40e6)
    assert rows[0] == {"host": "peer", "test": "hub -> peer ping loss after 15 s idle",
                       "before": "100 %", "after": "0 %", "reference": "0 %"}
    assert rows[1]["before"] == "3.10 Mbit/s (412 retransmits, cubic)"
    assert rows[1]["after"] == "37.9 Mbit/s (80 retransmits, bbr)"
    assert rows[1]["reference"] == "40.0 Mbit/s"


def test_missing_after_reads_na():
    rows = before_after_rows(BEFORE, {}, None)
    assert rows[0]["after"] == "n/a" and rows[1]["after"] == "n/a" and rows[1]["reference"] == ""


def test_failed_measurement_shows_the_reason():
    after = {"peer": dict(AFTER["peer"], iperf3={"bits_per_second": None, "msg": "unable to connect"})}
    assert before_after_rows(BEFORE, after)[1]["after"] == "failed: unable to connect"


def test_markdown_table_has_a_row_per_test():
    table = markdown_table(before_after_rows(BEFORE, AFTER, 40e6))
    lines = table.splitlines()
    assert lines[0].startswith("| host | test | before | after |")
    assert len(lines) == 4
