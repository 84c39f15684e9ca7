# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Render WireGuard, throughput and findings metrics as a node_exporter textfile.

Pure functions, no I/O. ``render_textfile`` turns facts the collection already gathers into the
Prometheus text exposition format 0.0.4 ("Exposition formats", prometheus.io/docs/instrumenting/
exposition_formats, section "Text format details"): ``# HELP`` and ``# TYPE`` lines first, then one
``name{label="value",...} value`` line per series, lines ending in ``\\n``; in label values a
backslash, a double quote and a line feed are written ``\\\\``, ``\\"`` and ``\\n``; in HELP text a
backslash and a line feed. node_exporter's textfile collector (Debian's prometheus-node-exporter
reads ``/var/lib/prometheus/node-exporter/*.prom``) and OpenWrt's prometheus-node-exporter-lua-textfile
(``/var/prometheus/*.prom``) serve the file as it is at every scrape.

The output is deterministic (families by name, series by label values, numbers in one spelling):
the same input gives the same bytes, so rewriting the file is a no-op until something changes,
and the file carries no write time.

Metrics (all gauges; seconds and bits per second as in their names)::

    # one series per WireGuard peer, labels interface and peer (the peer's PUBLIC key)
    tunnelfix_wireguard_latest_handshake_timestamp_seconds{interface="wg0",peer="AAAA…A="} 1796041221
    tunnelfix_wireguard_persistent_keepalive_seconds{interface="wg0",peer="AAAA…A="} 25
    tunnelfix_wireguard_keepalive_enabled{interface="wg0",peer="AAAA…A="} 1
    # from a valid tunnel_measure record only; absent (not 0) otherwise
    tunnelfix_tunnel_verified_bits_per_second{hub="hub",test="tcp_single_flow"} 35576089.08577776
    tunnelfix_tunnel_verified_timestamp_seconds{hub="hub",test="tcp_single_flow"} 1796041300
    # the floor verify holds that test to (when given), beside the valid result only
    tunnelfix_tunnel_floor_bits_per_second{hub="hub",test="tcp_single_flow"} 24903262.36
    # one series per (id, severity) among this host's findings
    tunnelfix_findings{id="nat_peer_without_keepalive",severity="critical"} 1

The handshake is exported as a Unix timestamp, never as an age: node_exporter serves the file
as written until it is written again, so an age frozen at write time is wrong at the next scrape
and looks healthy forever if the writer stops running, which is the failure an alert must catch.
Alert on ``time() - tunnelfix_wireguard_latest_handshake_timestamp_seconds > 180`` (WireGuard's
REJECT_AFTER_TIME) instead, plus the interval between writes: the file is a snapshot, so a
healthy peer's time is up to one interval older than the kernel's. No
``handshake_age_at_write`` metric is written for the same reason, and because an age would
differ on every run, so the file would never be unchanged.
A peer the kernel knows but that never completed a handshake gets 0, as ``wg show dump`` prints
it: that is a known "never", and the stale alert fires for it, as it should.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import is_wg_public_key
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import to_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_int

HANDSHAKE = "tunnelfix_wireguard_latest_handshake_timestamp_seconds"
KEEPALIVE = "tunnelfix_wireguard_persistent_keepalive_seconds"
KEEPALIVE_ENABLED = "tunnelfix_wireguard_keepalive_enabled"
VERIFIED_BPS = "tunnelfix_tunnel_verified_bits_per_second"
VERIFIED_AT = "tunnelfix_tunnel_verified_timestamp_seconds"
FLOOR = "tunnelfix_tunnel_floor_bits_per_second"
FINDINGS = "tunnelfix_findings"
# tunnel_measure's throughput test: one TCP flow from this host to its hub through the tunnel
THROUGHPUT_TEST = "tcp_single_flow"
MAX_KEEPALIVE_S = 65535  # wg(8): persistent-keepalive is 1-65535 seconds, or off

HEADER = "# tunnelfix.fleet prometheus_textfile: written by Ansible, do not edit.\n"
_HELP = {
    HANDSHAKE: "Unix time of the newest WireGuard handshake with the peer; 0 means none yet. "
               "Alert on time() - x > 180 (REJECT_AFTER_TIME).",
    KEEPALIVE: "PersistentKeepalive interval in seconds the kernel uses for the peer; 0 means off.",
    KEEPALIVE_ENABLED: "1 when PersistentKeepalive is set for the peer, 0 when it is off.",
    VERIFIED_BPS: "Throughput of the newest valid iperf3 test through the tunnel, in bits per second.",
    VERIFIED_AT: "Unix time the newest valid iperf3 test through the tunnel started.",
    FLOOR: "Throughput floor verify holds that test to, in bits per second. Alert when the result is below it.",
    FINDINGS: "Findings of tunnelfix diagnose for this host, by id and severity (count).",
}
_LABELS = {
    HANDSHAKE: ("interface", "peer"),
    KEEPALIVE: ("interface", "peer"),
    KEEPALIVE_ENABLED: ("interface", "peer"),
    VERIFIED_BPS: ("hub", "test"),
    VERIFIED_AT: ("hub", "test"),
    FLOOR: ("hub", "test"),
    FINDINGS: ("id", "severity"),
}


def escape_label_value(value: str) -> str:
    """``a\\b"c`` + line feed → ``a\\\\b\\"c\\n`` (backslash, double quote, line feed escaped)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    """HELP text: backslash and line feed escaped; a double quote stays as it is."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def format_value(value) -> str:
    """``25`` → ``25``; ``36.0e6`` → ``36000000``; ``35576089.08577776`` → ``35576089.08577776``.

    Whole numbers below 2**53 are written without a fraction, others with Python's shortest
    round-trip spelling, which Go's strconv.ParseFloat (Prometheus, node_exporter) reads back.
    """
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _whole(value, where, minimum=0, maximum=None):
    """A whole number in range; ParseError naming ``where`` otherwise (never the value's neighbours)."""
    if not is_int(value) or value < minimum or (maximum is not None and value > maximum):
        bound = "%d-%d" % (minimum, maximum) if maximum is not None else ">= %d" % minimum
        raise ParseError("%s must be a whole number %s, got %r" % (where, bound, value))
    return value


def _text(value, where):
    if not isinstance(value, str) or not value:
        raise ParseError("%s must be a non-empty string, got %r" % (where, value))
    return value


def _mapping(value, where):
    if not isinstance(value, Mapping):
        raise ParseError("%s must be a dict, got %s" % (where, type(value).__name__))
    return value


def _keepalive(value, where):
    """None or 0 (off) → 0; 1-65535 → the interval."""
    return 0 if value is None else _whole(value, where, 0, MAX_KEEPALIVE_S)


def _handshake(peer, where, now_epoch_s):
    """Unix time of the newest handshake, 0 for never.

    ``latest_handshake_epoch`` (tunnel_facts, openwrt_facts ``live``) when the key is there;
    otherwise ``now_epoch_s - handshake_age_s`` (facts that carry only the age).
    """
    if "latest_handshake_epoch" in peer:
        epoch = peer["latest_handshake_epoch"]
        return 0 if epoch is None else _whole(epoch, where + ".latest_handshake_epoch")
    age = peer.get("handshake_age_s")
    if age is None:
        return 0
    return max(0, now_epoch_s - _whole(age, where + ".handshake_age_s"))


def _peer_rows(ifname, peer, where, now_epoch_s):
    """``(public key, handshake epoch or None, keepalive seconds)`` for one peer, or None to skip it.

    Two shapes: tunnel_facts (the kernel's peer: ``public_key``, ``latest_handshake_epoch``,
    ``persistent_keepalive_s``) and openwrt_facts (a uci peer with ``in_uci``, ``disabled`` and
    ``live``, the kernel's view or None). A uci peer that is disabled, or has no public key, is
    skipped; one the kernel does not know has no handshake series (unknown, not "never") and
    the keepalive uci configures.
    """
    _mapping(peer, where)
    openwrt = "in_uci" in peer or "live" in peer
    if openwrt and (peer.get("disabled") is True or peer.get("public_key") is None):
        return None
    key = peer.get("public_key")
    if not is_wg_public_key(key):
        # never the value: whatever sits in the wrong place may be a secret
        raise ParseError("%s.public_key must be a WireGuard public key (44 base64 characters), got %s"
                         % (where, "a %d-character string" % len(key) if isinstance(key, str) else type(key).__name__))
    if not openwrt:
        return key, _handshake(peer, where, now_epoch_s), _keepalive(
            peer.get("persistent_keepalive_s"), where + ".persistent_keepalive_s")
    live = peer.get("live")
    if live is None:
        return key, None, _keepalive(peer.get("persistent_keepalive_s"), where + ".persistent_keepalive_s")
    _mapping(live, where + ".live")
    return key, _handshake(live, where + ".live", now_epoch_s), _keepalive(
        live.get("persistent_keepalive_s"), where + ".live.persistent_keepalive_s")


def wireguard_samples(wireguard_facts, now_epoch_s) -> dict:
    """``{metric: {(interface, public key): value}}`` from tunnel_facts' or openwrt_facts' ``wireguard``."""
    samples = {HANDSHAKE: {}, KEEPALIVE: {}, KEEPALIVE_ENABLED: {}}
    if wireguard_facts is None:
        return samples
    interfaces = _mapping(wireguard_facts, "wireguard_facts").get("interfaces") or {}
    _mapping(interfaces, "wireguard_facts.interfaces")
    for ifname in sorted(interfaces, key=str):
        where = "wireguard_facts.interfaces.%s" % ifname
        _text(ifname, "wireguard_facts.interfaces key")
        iface = _mapping(interfaces[ifname], where)
        if iface.get("disabled") is True:  # uci interface switched off on purpose
            continue
        peers = iface.get("peers") or []
        if not isinstance(peers, (list, tuple)):
            raise ParseError("%s.peers must be a list, got %s" % (where, type(peers).__name__))
        for index, peer in enumerate(peers):
            row = _peer_rows(ifname, peer, "%s.peers[%d]" % (where, index), now_epoch_s)
            if row is None:
                continue
            key, handshake, keepalive = row
            labels = (ifname, key)
            if labels in samples[KEEPALIVE]:
                raise ParseError("%s: peer %s appears twice on %s" % (where, key, ifname))
            if handshake is not None:
                samples[HANDSHAKE][labels] = handshake
            samples[KEEPALIVE][labels] = keepalive
            samples[KEEPALIVE_ENABLED][labels] = 1 if keepalive > 0 else 0
    return samples


def measurement_samples(measurement, floor_bits_per_second=None) -> dict:
    """Throughput, its time and its floor from a tunnel_measure record, only when its iperf3 test is valid.

    Record (tunnel_measure_record)::

        {"phase": "after", "hub": "hub", "iperf3": {"bits_per_second": 35576089.08577776,
                                                    "valid": True, "start_epoch_s": 1796041300}, ...}

    ``start_epoch_s`` (iperf3 -J ``start.timestamp.timesecs``) is optional: without it there is
    no timestamp series. ``floor_bits_per_second`` (bit/s, or with k/M/G: ``"32M"``; None or ``""``:
    none) is the floor verify holds this test to; its series sits beside the result, same labels, so
    ``result < floor`` matches them one to one. No record, no ``iperf3``, or ``valid`` false → no
    series at all, the floor's included (nothing to compare it with).
    """
    samples = {VERIFIED_BPS: {}, VERIFIED_AT: {}, FLOOR: {}}
    floor = None
    if floor_bits_per_second not in (None, ""):
        try:
            floor = to_bits_per_second(floor_bits_per_second)
        except ParseError as exc:
            raise ParseError("floor_bits_per_second: %s" % exc) from None
        if floor <= 0:
            raise ParseError("floor_bits_per_second must be above 0, got %r" % (floor_bits_per_second,))
    if measurement is None:
        return samples
    iperf3 = _mapping(measurement, "measurement").get("iperf3")
    if iperf3 is None:
        return samples
    _mapping(iperf3, "measurement.iperf3")
    valid = iperf3.get("valid", False)
    if not isinstance(valid, bool):
        raise ParseError("measurement.iperf3.valid must be true or false, got %r" % (valid,))
    if not valid:
        return samples
    labels = (_text(measurement.get("hub"), "measurement.hub"), THROUGHPUT_TEST)
    bps = iperf3.get("bits_per_second")
    # an int beyond any float (10**400) is refused like inf, not an OverflowError in isfinite
    if (isinstance(bps, bool) or not isinstance(bps, (int, float)) or abs(bps) >= 2 ** 1024
            or not math.isfinite(bps) or bps < 0):
        raise ParseError("measurement.iperf3.bits_per_second must be a finite number >= 0 when valid is true, got %r"
                         % (bps,))
    samples[VERIFIED_BPS][labels] = bps
    if iperf3.get("start_epoch_s") is not None:
        samples[VERIFIED_AT][labels] = _whole(iperf3["start_epoch_s"], "measurement.iperf3.start_epoch_s")
    if floor is not None:
        samples[FLOOR][labels] = floor
    return samples


def findings_samples(findings) -> dict:
    """``{FINDINGS: {(id, severity): count}}`` from this host's findings (``_findings.find_findings`` items)."""
    counts = {}
    if findings is None:
        return {FINDINGS: counts}
    if not isinstance(findings, (list, tuple)):
        raise ParseError("findings must be a list, got %s" % type(findings).__name__)
    for index, finding in enumerate(findings):
        where = "findings[%d]" % index
        _mapping(finding, where)
        labels = (_text(finding.get("id"), where + ".id"), _text(finding.get("severity"), where + ".severity"))
        counts[labels] = counts.get(labels, 0) + 1
    return {FINDINGS: counts}


def render_textfile(wireguard_facts, measurement, findings, now_epoch_s, floor_bits_per_second=None) -> str:
    """Render the metrics above as one textfile.

    ``wireguard_facts``: ``ansible_facts.tunnelfix.wireguard`` (tunnel_facts, gather_subset
    wireguard) or ``ansible_facts.tunnelfix_openwrt.wireguard`` (openwrt_facts), or None::

        {"available": True, "interfaces": {"wg0": {"peers": [
            {"public_key": "AAAA…A=", "latest_handshake_epoch": 1796041221,   # None: never
             "handshake_age_s": 84, "persistent_keepalive_s": 5, ...}]}}}      # None: off

    ``measurement``: ``tunnel_measure_record`` or None (see measurement_samples).
    ``findings``: this host's findings (``id``, ``severity``, ...) or None.
    ``now_epoch_s``: Unix time in seconds, used only for facts that carry a handshake age and no
    handshake time. ``floor_bits_per_second``: verify's floor for the measurement (see measurement_samples).

    Output for the peer above, a valid measurement and one finding::

        # tunnelfix.fleet prometheus_textfile: written by Ansible, do not edit.
        # HELP tunnelfix_findings Findings of tunnelfix diagnose for this host, by id and severity (count).
        # TYPE tunnelfix_findings gauge
        tunnelfix_findings{id="nat_peer_without_keepalive",severity="critical"} 1
        # HELP tunnelfix_tunnel_verified_bits_per_second ...
        # TYPE tunnelfix_tunnel_verified_bits_per_second gauge
        tunnelfix_tunnel_verified_bits_per_second{hub="hub",test="tcp_single_flow"} 35576089.08577776
        ...
        tunnelfix_wireguard_persistent_keepalive_seconds{interface="wg0",peer="AAAA…A="} 5

    A family without series is left out whole (no HELP or TYPE line). Only a peer's public key
    is ever read from the facts, so no private or preshared key can reach the file.
    Raises ParseError (a ValueError) naming the argument and key of anything malformed.
    """
    if not is_int(now_epoch_s) or now_epoch_s < 0:
        raise ParseError("now_epoch_s must be a whole number of seconds >= 0, got %r" % (now_epoch_s,))
    samples = {}
    samples.update(wireguard_samples(wireguard_facts, now_epoch_s))
    samples.update(measurement_samples(measurement, floor_bits_per_second))
    samples.update(findings_samples(findings))
    lines = [HEADER]
    for name in sorted(samples):
        if not samples[name]:
            continue
        lines.append("# HELP %s %s\n# TYPE %s gauge\n" % (name, escape_help(_HELP[name]), name))
        for labels in sorted(samples[name]):
            pairs = ",".join('%s="%s"' % (label, escape_label_value(value))
                             for label, value in zip(_LABELS[name], labels))
            lines.append("%s{%s} %s\n" % (name, pairs, format_value(samples[name][labels])))
    return "".join(lines)
