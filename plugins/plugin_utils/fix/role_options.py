# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Check a role's options in one pass and say what is wrong with each, naming option and value.

Pure functions, no I/O, behind the ``role_option_errors`` filter: a role hands over
``{option name: value}`` and fails once with every message, instead of one assert task per option.

    option_errors("linux_bbr_fq", {"linux_bbr_fq_netdev_max_backlog": 2000000})
    → ['linux_bbr_fq_netdev_max_backlog must be 0-1048576 packets (0 leaves it alone), got "2000000"']

Values may come from ``-e`` as strings; the messages quote the value as Jinja's
``value | string | to_json`` would. What the role's ``meta/argument_specs.yml`` already says is not
written again here: the choices and which options are booleans come from it (``faults/role_specs.py``,
generated); this module adds what a spec cannot say (ranges, shapes, options that depend on each other).

``CHECKS`` is every role's check: this module's for the roles no one fault owns (``GENERAL_CHECKS``: the measuring
and reporting roles, and the fixing roles several faults share), and the ones each fault declares for its own roles
in its folder (``Fault.option_checks``: the PMTU fault's ``path_mtu_measure`` and ``wireguard_mtu``), so a fault that
adds a role adds its check there and this file does not change. The wording both use is in ``faults/option_text.py``.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.option_text import absolute_path_errors, bool_errors as _bool_errors, shown
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.option_text import whole_number_in as _whole_number_in
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import FAULTS
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import option_choices
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import to_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import RULE as INTERFACE_NAME_RULE, is_interface_name
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.health_check_window import MAX_WINDOW_S
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.uplinks import uplink_option_errors
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.ping_burst import MAX_PINGS, check_target

_CC = re.compile(r"^[a-z0-9_]+$")
_QDISC = re.compile(r"^[a-z0-9_]*$")
_MEM = re.compile(r"^\s*[0-9]+\s+[0-9]+\s+[0-9]+\s*$")
_DIGITS = re.compile(r"^[0-9]+$")
_WG_KEY = re.compile(r"^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$")
_PHASE = re.compile(r"^[A-Za-z0-9_.-]+\Z")  # \Z: "after\n" would name another report file
MAX_BACKLOG = 1048576
MAX_KEEPALIVE_S = 65535
# the ethtool short names bridge_gso_off takes (its argument spec's choices)
BRIDGE_FEATURES = option_choices("bridge_gso_off", "bridge_gso_off_features")


def _is_match(pattern, value) -> bool:
    return isinstance(value, str) and bool(pattern.match(value))


def _mem_ok(value) -> bool:
    text = value if isinstance(value, str) else str(value)
    if text == "":
        return True
    if not _MEM.match(text):
        return False
    numbers = [int(part) for part in text.split()]
    return numbers == sorted(numbers) and numbers[0] > 0


def _backlog_ok(value) -> bool:
    if isinstance(value, bool) or not _DIGITS.match(str(value)):
        return False
    return int(value) <= MAX_BACKLOG


def _linux_bbr_fq(options):
    errors = []
    cc = options.get("linux_bbr_fq_congestion_control")
    if not _is_match(_CC, cc):
        errors.append("linux_bbr_fq_congestion_control must be a congestion control name such as bbr or cubic, "
                      "got %s" % shown(cc))
    qdisc = options.get("linux_bbr_fq_default_qdisc")
    if not _is_match(_QDISC, qdisc):
        errors.append("linux_bbr_fq_default_qdisc must be a qdisc name such as fq or fq_codel (empty leaves it "
                      "alone), got %s" % shown(qdisc))
    for name in ("linux_bbr_fq_tcp_rmem", "linux_bbr_fq_tcp_wmem"):
        if not _mem_ok(options.get(name)):
            errors.append('%s must be three ascending byte counts "min default max" such as "4096 131072 33554432", '
                          "got %s" % (name, shown(options.get(name))))
    backlog = options.get("linux_bbr_fq_netdev_max_backlog")
    if not _backlog_ok(backlog):
        errors.append("linux_bbr_fq_netdev_max_backlog must be 0-%d packets (0 leaves it alone), got %s"
                      % (MAX_BACKLOG, shown(backlog)))
    errors += absolute_path_errors(options, ("linux_bbr_fq_sysctl_file", "linux_bbr_fq_modules_load_file"))
    return errors + _bool_errors("linux_bbr_fq", options)


def _list_items(options, name):
    value = options.get(name)
    return value if isinstance(value, list) else [value]


def _wireguard_keepalive(options):
    errors = []
    interval = options.get("wireguard_keepalive_persistent_keepalive_s")
    if isinstance(interval, bool) or not _DIGITS.match(str(interval)) or int(interval) > MAX_KEEPALIVE_S:
        errors.append("wireguard_keepalive_persistent_keepalive_s must be 0-%d seconds, got %s"
                      % (MAX_KEEPALIVE_S, shown(interval)))
    for key in _list_items(options, "wireguard_keepalive_public_keys"):
        if not _is_match(_WG_KEY, key):
            errors.append("wireguard_keepalive_public_keys: %s is not a WireGuard public key "
                          "(44 base64 characters ending in '=')" % shown(key))
    for name in _list_items(options, "wireguard_keepalive_interfaces"):
        if not is_interface_name(name):
            errors.append("wireguard_keepalive_interfaces: %s is not an interface name (%s)" % (shown(name), INTERFACE_NAME_RULE))
    return errors


def _bridge_gso_off(options):
    errors = []
    bridges, tunnels = options.get("bridge_gso_off_bridges"), options.get("bridge_gso_off_tunnels")
    if not bridges and not tunnels:
        errors.append("bridge_gso_off_bridges is empty: name at least one bridge, for example [br-lan] "
                      "(or a tunnel device in bridge_gso_off_tunnels, for example [tailscale0])")
    for option, given in (("bridge_gso_off_bridges", bridges), ("bridge_gso_off_tunnels", tunnels)):
        for name in _list_items(options, option) if given else []:
            if not is_interface_name(name):
                errors.append("%s: %s is not an interface name (%s)" % (option, shown(name), INTERFACE_NAME_RULE))
    for option in ("bridge_gso_off_features", "bridge_gso_off_tunnel_features"):
        for feature in _list_items(options, option) if option in options else []:
            if feature not in option_choices("bridge_gso_off", option):
                errors.append("%s: %s is not one of %s" % (option, shown(feature), ", ".join(option_choices("bridge_gso_off", option))))
    return errors


def _health_check_measure(options):
    errors = []
    limits = (("health_check_measure_count", 1, MAX_PINGS, "rounds"),
              ("health_check_measure_interval_ms", 0, 10000, "ms"),
              ("health_check_measure_timeout_s", 1, 60, "seconds"),
              ("health_check_measure_window_s", 0, MAX_WINDOW_S, "seconds (0: no passive window)"))
    for name, low, high, unit in limits:
        if not _whole_number_in(options.get(name), low, high):
            errors.append("%s must be %d-%d %s, got %s" % (name, low, high, unit, shown(options.get(name))))
    targets = options.get("health_check_measure_targets")
    if isinstance(targets, str):  # the argument spec reads a string as a comma-separated list
        targets = [part.strip() for part in targets.split(",")] if targets.strip() else []
    if not isinstance(targets, list):
        errors.append("health_check_measure_targets must be a list of addresses, got %s" % shown(targets))
        targets = []
    for target in targets:
        try:
            check_target(target)
        except ValueError:
            errors.append("health_check_measure_targets: %s is not an IP address or host name" % shown(target))
    count = options.get("health_check_measure_count")
    if targets and _whole_number_in(count, 1, MAX_PINGS) and int(count) * len(targets) > MAX_PINGS:
        errors.append("health_check_measure_count x health_check_measure_targets must be at most %d pings, got %s x %d"
                      % (MAX_PINGS, shown(count), len(targets)))
    return errors


def _rate_ok(value) -> bool:
    """'' or None (no value), or a bit rate to_bits_per_second reads (``32M``, ``40000000``)."""
    if value is None or value == "":
        return True
    try:
        to_bits_per_second(value)
    except ParseError:
        return False
    return True


def _tunnel_measure(options):
    errors = []
    phase = options.get("tunnel_measure_phase")
    if not _is_match(_PHASE, phase):
        errors.append("tunnel_measure_phase must be a word of letters, digits, _ . or - (it names the report file), "
                      "got %s" % shown(phase))
    for name, empty in (("tunnel_measure_min_bits_per_second", "no check"),
                        ("tunnel_measure_path_bits_per_second", "unknown")):
        if not _rate_ok(options.get(name)):
            errors.append("%s must be bits per second or a number with k/M/G/T such as 32M (empty: %s), got %s"
                          % (name, empty, shown(options.get(name))))
    loss = options.get("tunnel_measure_max_ping_loss_percent")
    try:
        loss_ok = not isinstance(loss, bool) and 0 <= float(loss) <= 100
    except (TypeError, ValueError):
        loss_ok = False
    if not loss_ok:
        errors.append("tunnel_measure_max_ping_loss_percent must be 0-100 percent, got %s" % shown(loss))
    return errors


def _prometheus_textfile(options):
    floor = options.get("prometheus_textfile_floor_bits_per_second")
    if not _rate_ok(floor) or (floor not in (None, "") and to_bits_per_second(floor) <= 0):
        return ["prometheus_textfile_floor_bits_per_second must be above 0 bits per second, or a number with k/M/G/T "
                "such as 32M (empty: no floor series), got %s" % shown(floor)]
    return []


def _udp_gro_forwarding(options):
    errors = _bool_errors("udp_gro_forwarding", options)
    device = options.get("udp_gro_forwarding_device")
    if device not in (None, "") and not is_interface_name(device):
        errors.append("udp_gro_forwarding_device must be an interface name (%s) or empty for the default-route NIC, got %s"
                      % (INTERFACE_NAME_RULE, shown(device)))
    gateway, rollback = options.get("udp_gro_forwarding_gateway_timeout_s"), options.get("udp_gro_forwarding_rollback_timeout_s")
    if not _whole_number_in(gateway, 0, 120):
        errors.append("udp_gro_forwarding_gateway_timeout_s must be 0-120 seconds (0: no gateway check), got %s" % shown(gateway))
    if not _whole_number_in(rollback, 20, 3600):
        errors.append("udp_gro_forwarding_rollback_timeout_s must be 20-3600 seconds, got %s" % shown(rollback))
    elif _whole_number_in(gateway, 0, 120) and int(rollback) * 2 // 3 < int(gateway) + 10:
        # the apply waits for the gateway; the reconnect (two thirds of the rollback timeout) must outlast it
        errors.append("udp_gro_forwarding_rollback_timeout_s must be at least 1.5 x (udp_gro_forwarding_gateway_timeout_s "
                      "+ 10) = %d seconds, got %s" % (-(-(int(gateway) + 10) * 3 // 2), shown(rollback)))
    return errors


def _interface_names(options, option):
    """Messages for ``option`` when it is not a list of interface names (a comma-separated string from ``-e`` is not one)."""
    value = options.get(option)
    if not isinstance(value, list):
        return ["%s must be a list of interface names, got %s" % (option, shown(value))]
    return ["%s: %s is not an interface name (%s)" % (option, shown(name), INTERFACE_NAME_RULE)
            for name in value if not is_interface_name(name)]


def _openwrt_mwan3_wg(options):
    errors = _interface_names(options, "openwrt_mwan3_wg_interfaces")
    errors += uplink_option_errors(options.get("openwrt_mwan3_wg_preferred_uplink"), options.get("openwrt_mwan3_wg_metered_uplinks"),
                                   prefix="openwrt_mwan3_wg_", preferred_required=True)   # the facts' and the action's check
    rollback = options.get("openwrt_mwan3_wg_rollback_timeout_s")
    if not _whole_number_in(rollback, 20, 3600):
        errors.append("openwrt_mwan3_wg_rollback_timeout_s must be 20-3600 seconds, got %s" % shown(rollback))
    return errors


# The roles no one fault owns: the measuring and reporting roles, and the fixing roles of faults declared before
# Fault.option_checks. A fault's own role is checked in its folder and declared there (Fault.option_checks).
GENERAL_CHECKS = {
    "health_check_measure": _health_check_measure,
    "linux_bbr_fq": _linux_bbr_fq,
    "wireguard_keepalive": _wireguard_keepalive,
    "bridge_gso_off": _bridge_gso_off,
    "tunnel_measure": _tunnel_measure,
    "udp_gro_forwarding": _udp_gro_forwarding,
    "prometheus_textfile": _prometheus_textfile,
    "openwrt_mwan3_wg": _openwrt_mwan3_wg,
}


def role_checks(faults) -> dict:
    """``{role: check}``: ``GENERAL_CHECKS`` and every role check ``faults`` declare (``Fault.option_checks``).

    Raises ValueError when a fault declares a check for a role ``GENERAL_CHECKS`` has, or two faults
    declare different checks for one role (one role, one check: its messages are the role's).
    """
    checks = dict(GENERAL_CHECKS)
    owner = {}
    for fault in faults:
        for role, check in fault.option_checks.items():
            if role in GENERAL_CHECKS or checks.setdefault(role, check) is not check:
                raise ValueError("%s declares a check for the role %s, which %s checks already"
                                 % (fault.id, role, owner.get(role, "fix/role_options.py")))
            owner[role] = fault.id
    return checks


CHECKS = role_checks(FAULTS)


def option_errors(role: str, options: dict) -> list:
    """Every problem with ``options`` (``{option name: value}``) of ``role``, one message each; [] when all is well.

    Raises ParseError for a role this module does not know or options that are not a dict.
    """
    if role not in CHECKS:
        raise ParseError("role must be one of %s, got %r" % (", ".join(sorted(CHECKS)), role))
    if not isinstance(options, dict):
        raise ParseError("options must be a dict of option name -> value, got %s" % type(options).__name__)
    return CHECKS[role](options)
