"""The e2e's Prometheus wait (tests/e2e/prometheus_alerts.py) on recorded answers of Prometheus 2.42's HTTP API.

Fixtures: tests/unit/fixtures/prometheus_api_v1_alerts/ and prometheus_api_v1_targets/, recorded from the host's
prometheus scraping prometheus-node-exporter serving a textfile with the keepalive finding (fake key); each case
changes one field.
"""
import copy
import importlib.util
import json
import pathlib
from types import SimpleNamespace

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "e2e" / "prometheus_alerts.py"
_spec = importlib.util.spec_from_file_location("prometheus_alerts", SCRIPT)
alerts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(alerts)

KEEPALIVE = "TunnelfixKeepaliveOffOnNatedPeer"


def answer(load_fixture, api, case):
    return json.loads(load_fixture(api, case))


def args(alert=KEEPALIVE, label=None, targets=1):
    return SimpleNamespace(alert=alert, label={"instance": "peer"} if label is None else label, targets=targets)


@pytest.mark.parametrize("case, until, wanted, expected", [
    ("keepalive_firing.json", "firing", args(), True),
    ("keepalive_firing.json", "clear", args(), False),
    ("keepalive_firing.json", "clear", args(alert=None, label={}), False),     # clear of every alert: one fires
    ("keepalive_firing.json", "firing", args(label={"instance": "hub"}), False),  # another host's alert
    ("keepalive_firing.json", "firing", args(alert="TunnelfixFinding"), False),
    ("none.json", "firing", args(), False),
    ("none.json", "clear", args(), True),
    ("none.json", "clear", args(alert=None, label={}), True),
])
def test_firing_and_clear(load_fixture, case, until, wanted, expected):
    assert alerts.reached(until, answer(load_fixture, "prometheus_api_v1_alerts", case), wanted)[0] is expected


def test_a_pending_alert_is_not_firing(load_fixture):
    document = answer(load_fixture, "prometheus_api_v1_alerts", "keepalive_firing.json")
    document["data"]["alerts"][0]["state"] = "pending"
    assert alerts.reached("firing", document, args())[0] is False
    assert alerts.reached("clear", document, args())[0] is True


@pytest.mark.parametrize("health, needed, expected", [("up", 1, True), ("down", 1, False), ("up", 2, False), ("unknown", 1, False)])
def test_targets_up(load_fixture, health, needed, expected):
    document = answer(load_fixture, "prometheus_api_v1_targets", "one_up.json")
    document["data"]["activeTargets"][0]["health"] = health
    assert alerts.reached("targets-up", document, args(targets=needed))[0] is expected


@pytest.mark.parametrize("change", [
    lambda d: d.update(status="error"),
    lambda d: d.update(data={}),
    lambda d: d["data"].update(alerts=None),
])
def test_an_answer_that_is_not_an_alerts_list_is_refused(load_fixture, change):
    document = copy.deepcopy(answer(load_fixture, "prometheus_api_v1_alerts", "none.json"))
    change(document)
    with pytest.raises(ValueError, match="not a successful /api/v1/alerts answer"):
        alerts.reached("clear", document, args())


def test_the_wait_gives_up_naming_what_it_saw(monkeypatch, capsys, load_fixture):
    document = answer(load_fixture, "prometheus_api_v1_alerts", "none.json")
    monkeypatch.setattr(alerts, "_get", lambda url: document)
    monkeypatch.setattr(alerts.time, "sleep", lambda s: None)
    assert alerts.main(["--url", "http://127.0.0.1:1", "--until", "firing", "--alert", KEEPALIVE, "--timeout", "0"]) == 1
    assert "FAIL: prometheus: not firing within 0 s" in capsys.readouterr().out
    assert alerts.main(["--url", "http://127.0.0.1:1", "--until", "clear", "--alert", KEEPALIVE, "--timeout", "0"]) == 0
    assert " clear at " in capsys.readouterr().out
