# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read mwan3's interface status and tracking settings, and banIP's version and settings.

Formats: mwan3's ``mwan3_report_iface_status`` (``interface <name> is <status> and tracking is
<state>``, newer releases append ``(online 02h:14m:09s, uptime 02h:16m:40s)``); ``opkg
list-installed banip`` (OpenWrt <= 24.10) and ``apk list --installed banip`` (25.12);
``uci -q show mwan3`` and ``uci -q show banip`` (read with _uci.parse_uci_show, secrets redacted).
Pure functions, no I/O.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import (
    parse_uci_bool, parse_uci_int, parse_uci_show)

# banIP's ban_icmplimit default: none before 0.9.5 (no limiter), 10 from 0.9.5, 25 from 1.5.3
BANIP_ICMPLIMIT_DEFAULTS = (((1, 5, 3), 25), ((0, 9, 5), 10))

_IFACE = re.compile(r"^interface (?P<name>\S+) is (?P<status>[a-z]+)"
                    r"(?: and tracking is (?P<tracking>[a-z]+(?: [a-z]+)*?))?(?: \((?P<times>[^)]*)\))?$")
_DURATION = re.compile(r"\b(online|offline|uptime) (\d+)h:(\d+)m:(\d+)s\b")
_OPKG = re.compile(r"^(?P<package>\S+) - (?P<version>\S+)$")
_APK = re.compile(r"^(?P<nameversion>\S+-r\d+) \S+ \{[^}]*\}.*$")
_VERSION = re.compile(r"^(?P<upstream>\d+(?:\.\d+)*)(?:-(?P<release>r?\d+))?$")


def parse_mwan3_interfaces(text: str) -> dict:
    """Parse ``mwan3 interfaces`` into ``{interface: status}`` in the order printed.

    Input (case 01, mwan3 on OpenWrt 25.12)::

        Interface status:
         interface wan is online and tracking is active (online 02h:14m:09s, uptime 02h:16m:40s)

    Output::

        {"wan": {"status": "online",      # online, offline, disabled, error, unknown, ...
                 "tracking": "active",    # active, down, "not enabled", ...; None if not printed
                 "online_s": 8049,        # None when not printed (older mwan3)
                 "offline_s": None,
                 "uptime_s": 8200}}

    Blank lines and the ``Interface status:`` header are skipped. Raises ParseError naming the
    line for any other line (pass ``mwan3 interfaces``, not the whole ``mwan3 status``) or for
    an interface listed twice.
    """
    if not isinstance(text, str):
        raise ParseError("mwan3 interfaces output must be text, got %s" % type(text).__name__)
    interfaces = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped == "Interface status:":
            continue
        match = _IFACE.match(stripped)
        if not match:
            raise ParseError("mwan3 interfaces line %d: expected 'interface NAME is STATUS [and tracking is "
                             "STATE]', got %r" % (lineno, line[:200]))
        name = match.group("name")
        if name in interfaces:
            raise ParseError("mwan3 interfaces line %d: interface %r listed twice" % (lineno, name))
        durations = {word: int(h) * 3600 + int(m) * 60 + int(s)
                     for word, h, m, s in _DURATION.findall(match.group("times") or "")}
        interfaces[name] = {
            "status": match.group("status"),
            "tracking": match.group("tracking"),
            "online_s": durations.get("online"),
            "offline_s": durations.get("offline"),
            "uptime_s": durations.get("uptime"),
        }
    return interfaces


def _split_version(version, where):
    match = _VERSION.match(version)
    if not match:
        raise ParseError("%s: %r is not a banIP version such as 1.8.12-r1 or 1.0.1-1" % (where, version))
    upstream = match.group("upstream")
    return {"version": version, "upstream_version": upstream,
            "version_parts": [int(part) for part in upstream.split(".")]}


def parse_banip_version(text: str):
    """Find banIP's version in package manager output (or a bare version string).

    ``"banip - 1.0.1-1\\n"`` (``opkg list-installed banip``) →
    ``{"version": "1.0.1-1", "upstream_version": "1.0.1", "version_parts": [1, 0, 1]}``;
    ``"banip-1.8.12-r1 noarch {feeds/packages/net/banip} (GPL-3.0-or-later) [installed]"``
    (``apk list --installed banip``) → ``{"version": "1.8.12-r1", "upstream_version": "1.8.12",
    "version_parts": [1, 8, 12]}``; ``"1.8.12-r1"`` → the same.

    Lines for other packages (``luci-app-banip - ...`` from a grep) are skipped. Returns None
    when no line is banIP's (banIP not installed: opkg and apk print nothing).
    Raises ParseError naming the line for a line in neither shape or a malformed version.
    """
    if not isinstance(text, str):
        raise ParseError("banIP version output must be text, got %s" % type(text).__name__)
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        where = "banIP version line %d" % lineno
        opkg, apk = _OPKG.match(stripped), _APK.match(stripped)
        if opkg:
            if opkg.group("package") == "banip":
                return _split_version(opkg.group("version"), where)
        elif apk:
            package, _sep, version = apk.group("nameversion").partition("-")
            while version and not version[0].isdigit():  # package names may contain '-'
                more, _sep, version = version.partition("-")
                package += "-" + more
            if package == "banip":
                return _split_version(version, where)
        elif stripped[:1].isdigit():
            return _split_version(stripped, where)
        else:
            raise ParseError("%s: expected 'banip - VERSION' (opkg) or 'banip-VERSION ARCH {ORIGIN} ...' (apk), "
                             "got %r" % (where, line[:200]))
    return None


def banip_default_icmplimit(version_text: str):
    """Return banIP's default ``ban_icmplimit`` (packets per second) for the installed version.

    ``banip_default_icmplimit("banip - 1.0.1-1")`` → ``10``;
    ``banip_default_icmplimit("banip-1.8.12-r1 noarch {feeds/packages/net/banip} ...")`` → ``25``.

    From banIP's history in openwrt/packages (net/banip): the limiter came in 0.9.5 with 10,
    the default became 25 in 1.5.3. Before 0.9.5 there is no limiter: ``0``, which is also
    what ``ban_icmplimit '0'`` (disabled) means. Returns None when banIP is not installed
    (see parse_banip_version); raises ParseError as parse_banip_version does.
    """
    parsed = parse_banip_version(version_text)
    if parsed is None:
        return None
    for since, limit in BANIP_ICMPLIMIT_DEFAULTS:
        if parsed["version_parts"] >= list(since):
            return limit
    return 0


# mwan3 interface options read by mwan3track: uci name -> key in the result (units in the name)
_MWAN3_INT_OPTIONS = (("reliability", "reliability"), ("count", "count"), ("timeout", "timeout_s"),
                      ("interval", "interval_s"), ("failure_interval", "failure_interval_s"),
                      ("recovery_interval", "recovery_interval_s"), ("down", "down"), ("up", "up"))


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def parse_mwan3_tracking(text: str) -> dict:
    """Read each mwan3 interface's tracking settings from ``uci -q show mwan3``.

    Input (case 05)::

        mwan3.wan=interface
        mwan3.wan.enabled='1'
        mwan3.wan.track_method='ping'
        mwan3.wan.track_ip='1.0.0.1' '1.1.1.1'
        mwan3.wan.count='2'
        mwan3.wan.interval='1'

    Output::

        {"wan": {"enabled": True, "family": None, "track_method": "ping",
                 "track_ip": ["1.0.0.1", "1.1.1.1"], "reliability": None, "count": 2,
                 "timeout_s": None, "interval_s": 1, "failure_interval_s": None,
                 "recovery_interval_s": None, "down": None, "up": None}}

    Only sections of type ``interface``, in file order. An option that is not set is None (mwan3
    then uses its own default: track_method ping, count 1, interval 10 s, timeout 4 s,
    reliability 1, down 5, up 5); ``track_ip`` is always a list. Empty text (no mwan3 config)
    gives ``{}``. Raises ParseError for unreadable ``uci show`` output, or naming the option and
    value for a count, interval, ... that is not a whole number, or an enabled that is not a
    uci boolean.
    """
    sections = parse_uci_show(text).get("mwan3", {})
    tracking = {}
    for name, section in sections.items():
        if section["type"] != "interface":
            continue
        options = section["options"]
        where = "mwan3.%s." % name
        entry = {
            "enabled": parse_uci_bool(options.get("enabled"), where + "enabled"),
            "family": options.get("family"),
            "track_method": options.get("track_method"),
            "track_ip": _as_list(options.get("track_ip")),
        }
        for option, key in _MWAN3_INT_OPTIONS:
            entry[key] = parse_uci_int(options.get(option), where + option)
        tracking[name] = entry
    return tracking


def banip_settings(text: str, default_icmplimit=None) -> dict:
    """Read banIP's global settings from ``uci -q show banip`` and its effective ICMP limit.

    ``default_icmplimit`` is the installed version's default (banip_default_icmplimit), used
    when ``ban_icmplimit`` is not set. Case 05's config (no ban_icmplimit) with default 25 →
    ``{"enabled": True, "ban_icmplimit": None, "icmplimit_per_second": 25,
    "icmplimit_source": "default", "settings": {"ban_enabled": "1", "ban_autodetect": "1",
    "ban_feed": ["cinsscore", "firehol1"]}}``. With ``ban_icmplimit='250'`` →
    ``"ban_icmplimit": "250", "icmplimit_per_second": 250, "icmplimit_source": "uci"``.
    ``icmplimit_per_second`` 0 means the limiter is off; None (source None) means not set and the
    default is unknown.

    The section read is ``banip.global``, else the first section of type ``banip``; ``settings``
    are its options, secrets redacted. No config or no such section → no settings, ``enabled``
    None (banIP refuses to start without /etc/config/banip; its nft table tells).

    ``enabled`` follows banIP itself, not uci's booleans: every release (banip-functions.sh of
    openwrt-23.05@16c320b7fd, openwrt-24.10@42525d32c4, openwrt-25.12@57654a9f48) refuses to run
    only when ``uci_get banip global ban_enabled`` prints exactly ``0`` (it then deletes its table
    and exits 1); any other value, ``on``/``off``/``no``/``false`` included, and an unset option
    let it run. So ``enabled`` is False only for ``banip.global.ban_enabled='0'`` (a list
    option: its values joined by a space, as ``uci get`` prints them) and True for anything else
    where a banip config exists, also when the '0' is in an anonymous section (banIP reads the
    section named ``global`` only). Raises ParseError for unreadable ``uci show`` output, or
    naming the option and value for a ban_icmplimit that is not a whole number.
    """
    sections = parse_uci_show(text).get("banip", {})
    name = "global" if "global" in sections else next(
        (key for key, section in sections.items() if section["type"] == "banip"), None)
    options = dict(sections[name]["options"]) if name is not None else {}
    where = "banip.%s." % (name or "global")
    enabled = None
    if name is not None:  # banIP's own gate: only global's ban_enabled exactly '0' stops it (docstring)
        gate = (sections.get("global") or {}).get("options", {}).get("ban_enabled")
        enabled = (" ".join(gate) if isinstance(gate, list) else gate) != "0"
    raw = options.get("ban_icmplimit")
    limit = parse_uci_int(raw, where + "ban_icmplimit")
    if limit is not None:
        source = "uci"
    else:
        limit = default_icmplimit
        source = None if limit is None else "default"
    return {
        "enabled": enabled,
        "ban_icmplimit": raw,
        "icmplimit_per_second": limit,
        "icmplimit_source": source,
        "settings": options,
    }
