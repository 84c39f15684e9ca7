# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read ``mwan3 interfaces`` and the installed banIP version (for its ICMP limit default).

Formats: mwan3's ``mwan3_report_iface_status`` (``interface <name> is <status> and tracking is
<state>``, newer releases append ``(online 02h:14m:09s, uptime 02h:16m:40s)``); ``opkg
list-installed banip`` (OpenWrt <= 24.10) and ``apk list --installed banip`` (25.12).
Pure functions, no I/O.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

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
