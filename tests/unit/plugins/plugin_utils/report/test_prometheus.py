# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""render_textfile: metric lines present and absent, escaping, determinism, no secrets, errors.

The lab cases use the recorded host views of tests/unit/fixtures/host_views (tunnel_facts on hub
and peer, openwrt_facts on owrt, tunnel_measure records); the rest are small inputs, one field
changed per case. Keys are fake.
"""

import copy
import json
import random
import re

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.report.prometheus import render_textfile

A = "A" * 43 + "="
B = "B" * 43 + "="
C = "C" * 43 + "="
# shaped like keys, so a leak could not hide behind a shape check
PRIVATE = "P" * 43 + "="
PRESHARED = "Q" * 43 + "="
NOW = 1796041300

HS = "tunnelfix_wireguard_latest_handshake_timestamp_seconds"
KA = "tunnelfix_wireguard_persistent_keepalive_seconds"
KE = "tunnelfix_wireguard_keepalive_enabled"
BPS = "tunnelfix_tunnel_verified_bits_per_second"
AT = "tunnelfix_tunnel_verified_timestamp_seconds"
FIND = "tunnelfix_findings"
FLOOR = "tunnelfix_tunnel_floor_bits_per_second"

# one sample line of the text format: name{label="escaped value",...} number
SAMPLE = re.compile(r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)'
                    r'\{(?P<labels>[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
                    r'(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*)\}'
                    r' (?P<value>-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)$')


def samples(text):
    """The sample lines, without HELP, TYPE and comments."""
    return [line for line in text.splitlines() if not line.startswith("#")]


def linux_peer(key=A, handshake=1796041221, keepalive=25, **extra):
    peer = {"public_key": key, "endpoint": "203.0.113.1:51820", "latest_handshake_epoch": handshake,
            "handshake_age_s": NOW - handshake if isinstance(handshake, int) else None,
            "persistent_keepalive_s": keepalive, "has_preshared_key": False}
    peer.update(extra)
    return peer


def linux(*peers, ifname="wg0"):
    return {"available": True, "interfaces": {ifname: {"public_key": C, "has_private_key": True, "peers": list(peers)}}}


def owrt_peer(key=A, live=True, uci_keepalive=25, live_keepalive=25, handshake=1796041236, disabled=False):
    return {"public_key": key, "section": "hub", "disabled": disabled, "in_uci": True, "preshared_key_set": True,
            "persistent_keepalive_s": uci_keepalive,
            "live": None if not live else {"latest_handshake_epoch": handshake, "handshake_age_s": 64,
                                           "persistent_keepalive_s": live_keepalive, "has_preshared_key": True}}


def owrt(*peers, disabled=False):
    return {"wg_installed": True, "live": True, "note": None,
            "interfaces": {"wg0": {"in_uci": True, "live": True, "disabled": disabled, "private_key_set": True,
                                   "peers": list(peers)}}}


VALID = {"phase": "after", "hub": "hub", "idle_s": 25,
         "iperf3": {"bits_per_second": 35576089.08577776, "valid": True, "failed": False, "msg": ""}}


def measurement(**iperf3):
    record = copy.deepcopy(VALID)
    record["iperf3"].update(iperf3)
    return record


def peer_lines(ifname, key, handshake, keepalive):
    """The lines for one peer, in file order (families sorted by name)."""
    labels = '{interface="%s",peer="%s"}' % (ifname, key)
    handshake_line = [] if handshake is None else ["%s%s %d" % (HS, labels, handshake)]
    return ["%s%s %d" % (KE, labels, 1 if keepalive else 0)] + handshake_line + ["%s%s %d" % (KA, labels, keepalive)]


CASES = [
    ("no wireguard facts", None, None, None, []),
    ("no interfaces", {"available": False, "interfaces": {}}, None, None, []),
    ("interface without peers", linux(), None, None, []),
    ("keepalive on", linux(linux_peer()), None, None, peer_lines("wg0", A, 1796041221, 25)),
    ("keepalive off (None)", linux(linux_peer(keepalive=None)), None, None, peer_lines("wg0", A, 1796041221, 0)),
    ("keepalive off (0)", linux(linux_peer(keepalive=0)), None, None, peer_lines("wg0", A, 1796041221, 0)),
    ("never a handshake: 0, so the stale alert fires", linux(linux_peer(handshake=None)), None, None,
     peer_lines("wg0", A, 0, 25)),
    ("only the age known: now - age",
     linux({"public_key": A, "handshake_age_s": 100, "persistent_keepalive_s": None}), None, None,
     peer_lines("wg0", A, NOW - 100, 0)),
    ("openwrt: live values win over uci", owrt(owrt_peer(uci_keepalive=25, live_keepalive=None)), None, None,
     peer_lines("wg0", A, 1796041236, 0)),
    ("openwrt: not live, no handshake series, uci keepalive", owrt(owrt_peer(live=False)), None, None,
     peer_lines("wg0", A, None, 25)),
    ("openwrt: a disabled peer is left out", owrt(owrt_peer(disabled=True), owrt_peer(key=B)), None, None,
     peer_lines("wg0", B, 1796041236, 25)),
    ("openwrt: a disabled interface is left out", owrt(owrt_peer(), disabled=True), None, None, []),
    ("openwrt: a uci peer without a key is left out", owrt(owrt_peer(key=None)), None, None, []),
    ("valid measurement, no start time", None, VALID, None,
     ['%s{hub="hub",test="tcp_single_flow"} 35576089.08577776' % BPS]),
    ("valid measurement with its start time", None, measurement(start_epoch_s=1796041290), None,
     ['%s{hub="hub",test="tcp_single_flow"} 35576089.08577776' % BPS,
      '%s{hub="hub",test="tcp_single_flow"} 1796041290' % AT]),
    ("whole bits per second written without a fraction", None, measurement(bits_per_second=40e6), None,
     ['%s{hub="hub",test="tcp_single_flow"} 40000000' % BPS]),
    ("invalid measurement: no throughput series, not 0", None, measurement(valid=False, bits_per_second=None,
                                                                           start_epoch_s=1796041290), None, []),
    ("failed iperf3 run without a valid key", None, {"hub": "hub", "iperf3": {"failed": True}}, None, []),
    ("record without iperf3", None, {"hub": "hub", "phase": "after"}, None, []),
    ("no findings", None, None, [], []),
    ("findings counted by id and severity", None, None,
     [{"id": "nat_peer_without_keepalive", "severity": "critical", "host": "peer"},
      {"id": "buffer_below_bdp", "severity": "medium", "host": "peer"},
      {"id": "buffer_below_bdp", "severity": "medium", "host": "peer"}],
     ['%s{id="buffer_below_bdp",severity="medium"} 2' % FIND,
      '%s{id="nat_peer_without_keepalive",severity="critical"} 1' % FIND]),
]


@pytest.mark.parametrize("wireguard, record, findings, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_series(wireguard, record, findings, expected):
    assert samples(render_textfile(wireguard, record, findings, NOW)) == expected


@pytest.mark.parametrize("record, floor, expected", [
    (VALID, 24.9e6, ['%s{hub="hub",test="tcp_single_flow"} 24900000' % FLOOR,
                     '%s{hub="hub",test="tcp_single_flow"} 35576089.08577776' % BPS]),
    (VALID, "32M", ['%s{hub="hub",test="tcp_single_flow"} 32000000' % FLOOR,
                    '%s{hub="hub",test="tcp_single_flow"} 35576089.08577776' % BPS]),
    (VALID, None, ['%s{hub="hub",test="tcp_single_flow"} 35576089.08577776' % BPS]),
    (VALID, "", ['%s{hub="hub",test="tcp_single_flow"} 35576089.08577776' % BPS]),
    # no valid result to compare with: no floor series either
    (measurement(valid=False, bits_per_second=None), 24.9e6, []),
    (None, 24.9e6, []),
])
def test_floor_beside_a_valid_result_only(record, floor, expected):
    assert samples(render_textfile(None, record, None, NOW, floor)) == expected


@pytest.mark.parametrize("floor, message", [
    ("fast", "floor_bits_per_second: cannot parse bitrate 'fast'"),
    (-1, "floor_bits_per_second: cannot parse bitrate -1"),
    (0, "floor_bits_per_second must be above 0, got 0"),
    ("0M", "floor_bits_per_second must be above 0, got '0M'"),
])
def test_a_bad_floor_is_named(floor, message):
    with pytest.raises(ParseError, match=re.escape(message)):
        render_textfile(None, VALID, None, NOW, floor)


@pytest.mark.parametrize("host, expected", [
    ("peer", peer_lines("wg0", A, 1796041221, 5)
     + ['%s{hub="hub",test="tcp_single_flow"} 35576089.08577776' % BPS]),
    ("owrt", peer_lines("wg0", A, 1796041236, 25)
     + ['%s{hub="hub",test="tcp_single_flow"} 36627038.186555825' % BPS]),
    ("hub", peer_lines("wg0", B, 1796041221, 0) + peer_lines("wg0", C, 1796041236, 0)),
])
def test_recorded_lab_after_remediation(load_fixture, host, expected):
    view = json.loads(load_fixture("host_views", "lab_after.json"))[host]
    wireguard = (view["tunnelfix"] or {}).get("wireguard") or view["openwrt"]["wireguard"]
    assert sorted(samples(render_textfile(wireguard, view["measurement"], [], NOW))) == sorted(expected)


def test_whole_file_layout():
    text = render_textfile(linux(linux_peer()), measurement(start_epoch_s=1796041290),
                           [{"id": "nat_peer_without_keepalive", "severity": "critical"}], NOW)
    lines = text.splitlines()
    assert text.endswith("\n") and "\n\n" not in text
    assert lines[0].startswith("# tunnelfix.fleet prometheus_textfile")
    names = [line.split()[2] for line in lines if line.startswith("# TYPE ")]
    assert names == sorted([FIND, BPS, AT, HS, KA, KE])
    for name in names:
        helps = [i for i, line in enumerate(lines) if line.startswith("# HELP %s " % name)]
        first_sample = next(i for i, line in enumerate(lines) if line.startswith(name + "{"))
        assert len(helps) == 1 and lines[helps[0] + 1] == "# TYPE %s gauge" % name and helps[0] + 2 == first_sample
    for line in samples(text):
        assert SAMPLE.match(line), line


@pytest.mark.parametrize("raw, escaped", [
    ('w\\g0', 'w\\\\g0'),
    ('w"g0', 'w\\"g0'),
    ('w\ng0', 'w\\ng0'),
    ('\\"\n', '\\\\\\"\\n'),
])
def test_label_escaping(raw, escaped):
    text = render_textfile(linux(linux_peer(), ifname=raw), {"hub": raw, "iperf3": {"valid": True, "bits_per_second": 1}},
                           [{"id": raw, "severity": "high"}], NOW)
    assert '{interface="%s",peer="%s"}' % (escaped, A) in text
    assert '{hub="%s",test="tcp_single_flow"}' % escaped in text
    assert '{id="%s",severity="high"}' % escaped in text
    for line in samples(text):
        assert SAMPLE.match(line), line


def test_deterministic_whatever_the_input_order():
    peers = [linux_peer(key=key, handshake=1796041000 + i) for i, key in enumerate((A, B, C))]
    findings = [{"id": "b", "severity": "high"}, {"id": "a", "severity": "low"}, {"id": "a", "severity": "high"}]
    first = render_textfile({"interfaces": {"wg1": {"peers": peers}, "wg0": {"peers": peers[:1]}}}, VALID, findings, NOW)
    for seed in range(5):
        shuffled, found = peers[:], findings[:]
        random.Random(seed).shuffle(shuffled)
        random.Random(seed).shuffle(found)
        wireguard = {"interfaces": {"wg0": {"peers": peers[:1]}, "wg1": {"peers": shuffled}}}
        assert render_textfile(wireguard, VALID, found, NOW + seed) == first


def test_no_secret_reaches_the_file():
    wireguard = linux(linux_peer(private_key=PRIVATE, preshared_key=PRESHARED), linux_peer(key=B, has_preshared_key=True))
    wireguard["interfaces"]["wg0"]["private_key"] = PRIVATE
    openwrt = owrt(owrt_peer(key=B))
    openwrt["interfaces"]["wg0"]["options"] = {"private_key": PRIVATE}
    openwrt["interfaces"]["wg0"]["peers"][0]["preshared_key"] = PRESHARED
    for facts, keys in ((wireguard, {A, B}), (openwrt, {B})):
        text = render_textfile(facts, VALID, [{"id": "x", "severity": "low", "evidence": {"key": PRIVATE}}], NOW)
        assert PRIVATE not in text and PRESHARED not in text
        assert C not in text  # the interface's own public key is not a peer
        assert {m.group(1) for m in re.finditer(r'peer="([^"]*)"', text)} == keys


ERRORS = [
    ("x", None, None, NOW, "wireguard_facts must be a dict, got str"),
    ({"interfaces": ["wg0"]}, None, None, NOW, "wireguard_facts.interfaces must be a dict"),
    ({"interfaces": {"wg0": {"peers": "x"}}}, None, None, NOW, "wireguard_facts.interfaces.wg0.peers must be a list"),
    ({"interfaces": {"wg0": {"peers": ["x"]}}}, None, None, NOW, "wireguard_facts.interfaces.wg0.peers[0] must be a dict"),
    (linux(linux_peer(key="not-a-key")), None, None, NOW,
     "wireguard_facts.interfaces.wg0.peers[0].public_key must be a WireGuard public key (44 base64 characters), "
     "got a 9-character string"),
    (linux(linux_peer(key=None)), None, None, NOW, "peers[0].public_key must be a WireGuard public key"),
    (linux(linux_peer(keepalive=70000)), None, None, NOW,
     "wireguard_facts.interfaces.wg0.peers[0].persistent_keepalive_s must be a whole number 0-65535, got 70000"),
    (linux(linux_peer(keepalive=True)), None, None, NOW, "persistent_keepalive_s must be a whole number 0-65535, got True"),
    (linux(linux_peer(handshake="1796041221")), None, None, NOW,
     "peers[0].latest_handshake_epoch must be a whole number >= 0, got '1796041221'"),
    (linux(linux_peer(handshake=-5)), None, None, NOW, "latest_handshake_epoch must be a whole number >= 0, got -5"),
    (linux(linux_peer(), linux_peer()), None, None, NOW, "wireguard_facts.interfaces.wg0: peer %s appears twice" % A),
    (owrt(dict(owrt_peer(), live="up")), None, None, NOW, "wireguard_facts.interfaces.wg0.peers[0].live must be a dict"),
    (owrt(owrt_peer(live_keepalive=-1)), None, None, NOW, "peers[0].live.persistent_keepalive_s must be a whole number"),
    (None, "x", None, NOW, "measurement must be a dict, got str"),
    (None, {"iperf3": []}, None, NOW, "measurement.iperf3 must be a dict, got list"),
    (None, measurement(valid="True"), None, NOW, "measurement.iperf3.valid must be true or false, got 'True'"),
    (None, measurement(bits_per_second=None), None, NOW,
     "measurement.iperf3.bits_per_second must be a finite number >= 0 when valid is true, got None"),
    (None, measurement(bits_per_second=float("nan")), None, NOW, "measurement.iperf3.bits_per_second"),
    (None, measurement(bits_per_second="35e6"), None, NOW, "measurement.iperf3.bits_per_second"),
    (None, measurement(bits_per_second=True), None, NOW, "measurement.iperf3.bits_per_second"),
    # an int beyond any float: refused like inf, never an OverflowError
    (None, measurement(bits_per_second=10 ** 400), None, NOW,
     "measurement.iperf3.bits_per_second must be a finite number >= 0 when valid is true, got 1000"),
    (None, dict(VALID, hub=None), None, NOW, "measurement.hub must be a non-empty string, got None"),
    (None, measurement(start_epoch_s="today"), None, NOW, "measurement.iperf3.start_epoch_s must be a whole number"),
    (None, None, {"id": "x"}, NOW, "findings must be a list, got dict"),
    (None, None, ["x"], NOW, "findings[0] must be a dict"),
    (None, None, [{"severity": "high"}], NOW, "findings[0].id must be a non-empty string, got None"),
    (None, None, [{"id": "x", "severity": 3}], NOW, "findings[0].severity must be a non-empty string, got 3"),
    (None, None, None, -1, "now_epoch_s must be a whole number of seconds >= 0, got -1"),
    (None, None, None, "1796041300", "now_epoch_s must be a whole number of seconds >= 0"),
    (None, None, None, True, "now_epoch_s must be a whole number of seconds >= 0, got True"),
]


@pytest.mark.parametrize("wireguard, record, findings, now, message", ERRORS)
def test_errors_name_the_argument(wireguard, record, findings, now, message):
    with pytest.raises(ParseError) as err:
        render_textfile(wireguard, record, findings, now)
    assert isinstance(err.value, ValueError)
    assert message in str(err.value)


def test_error_never_quotes_a_value_in_the_key_field():
    with pytest.raises(ParseError) as err:
        render_textfile(linux(linux_peer(key=PRIVATE[:-1])), None, None, NOW)
    assert PRIVATE[:-1] not in str(err.value)
