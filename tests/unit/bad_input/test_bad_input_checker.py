# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bad-input runner's judge (tests/bad_input/bad_input.py) fails what it must: accepted, crashed, vague."""
import importlib.util
import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parents[2] / "bad_input"
_spec = importlib.util.spec_from_file_location("bad_input", HERE / "bad_input.py")
bad_input = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bad_input)

CASE = {"id": "keepalive_65536", "kind": "role", "name": "wireguard_keepalive", "target": "nohost",
        "expect": ["wireguard_keepalive_persistent_keepalive_s", "65536"]}
GOOD = "wireguard_keepalive_persistent_keepalive_s must be 0-65535 seconds, got \"65536\""


@pytest.mark.parametrize("outcome, passed, text", [
    (("failed", {"failed": True, "msg": GOOD, "exception": "(traceback unavailable)"}), True, GOOD),
    (("failed", {"msg": "One or more items failed", "results": [{"msg": "All assertions passed"}, {"msg": GOOD}]}),
     True, GOOD),
    (("accepted", {"changed": False}), False, "bad input accepted"),
    (("accepted", {"skipped": True, "msg": "check mode"}), False, "bad input skipped"),
    (("accepted", {"unreachable": True, "msg": "ssh: connect to host"}), False, "unreachable: reached the host"),
    (("failed", {"msg": "wireguard_keepalive_persistent_keepalive_s is wrong"}), False, 'message lacks "65536"'),
    (("failed", {"msg": GOOD + " Traceback (most recent call last):"}), False, "crash (Traceback"),
    (("failed", {"msg": "Unexpected failure during module execution: 'NoneType' object " + GOOD}), False, "crash"),
    (("failed", {"msg": GOOD, "exception": "Traceback ...\nKeyError: 'x'"}), False, "crash"),
    (None, False, "no result"),
])
def test_judge(outcome, passed, text):
    got_passed, got_text = bad_input.judge(CASE, outcome, {"bad_input_closed_port": 4242})
    assert got_passed is passed and text in got_text


def test_closed_port_is_put_into_expectations():
    case = dict(CASE, expect=["127.0.0.1:{{ bad_input_closed_port }}"])
    extra_vars = {"bad_input_closed_port": 4242}
    assert bad_input.judge(case, ("failed", {"msg": "iperf3 to 127.0.0.1:4242 failed"}), extra_vars)[0] is True
    assert bad_input.judge(case, ("failed", {"msg": "iperf3 to 127.0.0.1:5201 failed"}), extra_vars)[0] is False


def test_the_table_is_well_formed_and_big_enough():
    cases = bad_input.load_cases(HERE / "cases.yml")
    assert len(cases) >= 40
    assert {case["kind"] for case in cases} == set(bad_input.KINDS)
    roles = {case["name"] for case in cases if case["kind"] == "role"}
    assert roles == {path.name for path in (HERE.parents[1] / "roles").iterdir() if path.is_dir()}
    plugins = {case["name"] for case in cases if case["kind"] == "action"}
    modules = {path.stem for path in (HERE.parents[1] / "plugins" / "modules").glob("*.py")}
    assert plugins == modules


def test_playbook_has_one_block_per_case(tmp_path):
    out = tmp_path / "main.yml"
    count = bad_input.write_playbook("main", HERE / "cases.yml", out)
    text = out.read_text(encoding="utf-8")
    assert count >= 40 and text.count("bad_input failed ") == count
