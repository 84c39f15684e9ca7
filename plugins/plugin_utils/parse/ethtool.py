# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read ``ethtool -k IFACE`` (offload features) and explain ``ethtool -K`` failures.

Format: ethtool 6.1 (netlink) as recorded on Linux 6.18, and the ioctl-era wording seen on
OpenWrt routers; both print one ``name: on|off [tag]`` line per feature, children of a
feature group indented by a tab. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

# ethtool(8) -K short names and the long names ``ethtool -k`` prints
SHORT_NAMES = {
    "rx": "rx-checksumming",
    "tx": "tx-checksumming",
    "sg": "scatter-gather",
    "tso": "tcp-segmentation-offload",
    "ufo": "udp-fragmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
    "lro": "large-receive-offload",
    "rxvlan": "rx-vlan-offload",
    "txvlan": "tx-vlan-offload",
    "ntuple": "ntuple-filters",
    "rxhash": "receive-hashing",
}
DEFAULT_WANTED_OFF = ("generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload")
ERROR_REASONS = ("fixed", "unknown_feature", "no_device", "permission_denied", "unsupported", "unknown")

# "Features for br-lan:" (ethtool >= 3.x), "Offload parameters for eth0:" (older),
# "Actual changes:" (stdout of a partly refused ``ethtool -K``)
_HEADER = re.compile(r"^(?:Features for (?P<iface>\S+?)|Offload parameters for (?P<old>\S+?)|Actual changes):\s*$")
_FEATURE = re.compile(r"^(?P<name>[A-Za-z0-9_-]+): (?P<state>on|off)(?: \[(?P<tag>[a-z ]+)\])?$")
_TAGS = {None: "plain", "fixed": "fixed", "requested on": True, "requested off": False, "not requested": None}
# (reason, lower-case substring) tried in this order against the whole stderr
_ERROR_MARKERS = (
    ("fixed", "could not change any device features"),
    ("unknown_feature", "bit name not found"),
    ("unknown_feature", "bad command line argument"),
    ("no_device", "no device matches name"),
    ("no_device", "no such device"),
    ("permission_denied", "operation not permitted"),
    ("unsupported", "operation not supported"),
)


def parse_ethtool_features(text: str) -> dict:
    """Parse ``ethtool -k IFACE`` into the interface name and its features.

    Input (ethtool 6.1)::

        Features for br-lan:
        rx-checksumming: off [fixed]
        tcp-segmentation-offload: on
        \\ttx-tcp-segmentation: off [requested on]

    Output::

        {"interface": "br-lan",
         "features": {
            "rx-checksumming": {"enabled": False, "fixed": True, "requested": None},
            "tcp-segmentation-offload": {"enabled": True, "fixed": False, "requested": True},
            "tx-tcp-segmentation": {"enabled": False, "fixed": False, "requested": True}}}

    ``requested`` is the state asked for: ethtool prints ``[requested on|off]`` only where it
    differs from the active state, so an untagged line has ``requested == enabled``; it is None
    where ethtool cannot tell (``[fixed]``, ``[not requested]``). The stdout of a refused
    ``ethtool -K`` (``Actual changes:`` then feature lines) parses too, with ``interface``
    None. Indented child features (``tx-tcp-segmentation`` under
    ``tcp-segmentation-offload``) are listed flat.

    Raises ParseError naming the line for a line that is neither a header nor
    ``name: on|off [tag]``, an unknown tag, or output without any feature (ethtool's errors
    belong on stderr: see classify_ethtool_k_error).
    """
    if not isinstance(text, str):
        raise ParseError("ethtool -k output must be text, got %s" % type(text).__name__)
    interface = None
    features = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        header = _HEADER.match(stripped)
        if header:
            interface = header.group("iface") or header.group("old")
            continue
        match = _FEATURE.match(stripped)
        if not match or match.group("tag") not in _TAGS:
            raise ParseError("ethtool -k line %d: expected 'feature: on|off [fixed|requested on|requested off|"
                             "not requested]', got %r" % (lineno, line[:200]))
        enabled = match.group("state") == "on"
        tag = _TAGS[match.group("tag")]
        features[match.group("name")] = {
            "enabled": enabled,
            "fixed": tag == "fixed",
            "requested": enabled if tag == "plain" else (None if tag == "fixed" else tag),
        }
    if not features:
        raise ParseError("ethtool -k printed no features: %r" % text[:200])
    return {"interface": interface, "features": features}


def offload_changes(features: dict, wanted_off=DEFAULT_WANTED_OFF) -> dict:
    """Sort the offloads to turn off into those to change, those ``[fixed]`` and those already off.

    ``features`` is ``parse_ethtool_features(text)["features"]``; ``wanted_off`` holds long
    names or ethtool's short names (``gso``, ``tso``, ``gro``, see SHORT_NAMES). With the case-12
    port ``lan1`` (gso/tso/gro on, ``tx-tcp-ecn-segmentation: off [fixed]``)::

        offload_changes(lan1, ("tso", "gso", "gro", "tx-tcp-ecn-segmentation"))
        → {"to_change": ["tcp-segmentation-offload", "generic-segmentation-offload",
                         "generic-receive-offload"],
           "skipped_fixed": [],
           "already_off": ["tx-tcp-ecn-segmentation"]}

    Lists hold long names in the order asked, each once. A feature that is on and ``[fixed]``
    lands in ``skipped_fixed`` (``ethtool -K`` would fail with ``Could not change any device
    features``); off and fixed counts as already off.

    Raises ParseError for a name this device's ``ethtool -k`` does not list (a typo, or a
    short name ethtool does not know).
    """
    result = {"to_change": [], "skipped_fixed": [], "already_off": []}
    seen = set()
    for wanted in wanted_off:
        name = SHORT_NAMES.get(wanted, wanted)
        if name in seen:
            continue
        seen.add(name)
        feature = features.get(name)
        if feature is None:
            raise ParseError("offload feature %r is not in the ethtool -k output (known short names: %s)"
                             % (wanted, ", ".join(sorted(SHORT_NAMES))))
        if not feature["enabled"]:
            result["already_off"].append(name)
        elif feature["fixed"]:
            result["skipped_fixed"].append(name)
        else:
            result["to_change"].append(name)
    return result


def classify_ethtool_k_error(stderr: str) -> dict:
    """Explain why ``ethtool -K IFACE ...`` failed, from its stderr.

    ``"Could not change any device features\\n"`` → ``{"reason": "fixed", "message": "Could not
    change any device features"}``; ``"netlink error: bit name not found (offset 56)\\nnetlink
    error: Operation not supported\\n"`` → ``{"reason": "unknown_feature", "message":
    "netlink error: bit name not found (offset 56)"}``.

    Reasons (ERROR_REASONS): ``fixed`` (the kernel refused every requested change: the feature
    is ``[fixed]`` or depends on one; ethtool 6.1 exits 1 and lists the refused features as
    ``[requested ...]`` on stdout), ``unknown_feature`` (exit 92 on ethtool 6.1),
    ``no_device``, ``permission_denied``, ``unsupported``, ``unknown`` (anything else, or empty
    stderr; ``message`` is then the first non-blank line or None). Format: ethtool 6.1 netlink
    messages and the ioctl-era ``Could not change any device features``.
    Raises ParseError when stderr is not text.
    """
    if not isinstance(stderr, str):
        raise ParseError("ethtool -K stderr must be text, got %s" % type(stderr).__name__)
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for reason, marker in _ERROR_MARKERS:
        for line in lines:
            if marker in line.lower():
                return {"reason": reason, "message": line}
    return {"reason": "unknown", "message": lines[0] if lines else None}
