# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""openwrt_mwan3_wg's full-tunnel hotplug hook: where it is, its text, and what the router has.

``HOOK_PATH`` is the one place the path is written in Python (roles/openwrt_mwan3_wg/vars/main.yml names it for the
role, pinned to it by tests/unit/roles/test_openwrt_mwan3_wg_tasks.py); ``OLD_HOOK_PATH`` is where versions before
0.5 installed it (in /etc/hotplug.d/mwan3/, which nothing runs: the role removes it). ``hook_content`` is the hook's
text, written once here: the plan (``plan.hotplug_hook_plan``) puts it in ``hotplug_hook.content`` and the role writes
it as it is (tunnelfix.fleet.plain_file; the router has no Python). ``HOOK_PROBE`` is a step of the ``endpoint_routes``
reading and of wg_endpoint_route's first batch (``reads.read_endpoint_routes`` reads it for both): the SHA-256 of both
files, so the plan can tell a converged router (the hook there with the planned text) from one whose hook is missing,
differs or is stale, and whether the old file is left. ``parse_hook_probe`` and ``hook_content`` are pure.
"""

from __future__ import annotations

import hashlib
import re

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ANY_EXIT_STATUS

# /sbin/hotplug-call iface sources /etc/hotplug.d/iface/ (roles/openwrt_mwan3_wg/vars/main.yml says why 17)
HOOK_PATH = "/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint"
# where versions before 0.5 installed it: mwan3 never runs /etc/hotplug.d/mwan3/ (roles/openwrt_mwan3_wg/vars/main.yml)
OLD_HOOK_PATH = "/etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint"
# sha256sum of both files in one command (no shell): rc 0 when both exist, 1 when one is missing or unreadable
HOOK_PROBE = ["sha256sum", HOOK_PATH, OLD_HOOK_PATH]
_MISSING = "No such file or directory"
_DIGEST_LINE = re.compile(r"([0-9a-f]{64}) [ *](.+)")
UNKNOWN = {"exists": None, "sha256": None}


def parse_hook_probe(rc, stdout, stderr) -> dict:
    """What ``HOOK_PROBE`` says of each file, from its exit code, stdout and stderr: ``{path: {"exists", "sha256"}}``
    for ``HOOK_PATH`` and ``OLD_HOOK_PATH``.

    A file is there with its SHA-256 (lowercase hex) when stdout has its ``HEX  PATH`` line; absent (``exists`` False,
    ``sha256`` None) when stderr says "No such file or directory" for it; else unknown (both None: no ``sha256sum``,
    rc 127; permission denied; a line that is no digest). GNU coreutils 9.1 and BusyBox 1.35 print the same digest line
    (two spaces, the path as given; GNU escapes a path holding a backslash or a newline, which these do not) and both
    exit 1 when a file is missing, saying so on stderr in their own words: ``sha256sum: PATH: No such file or directory``
    (GNU), ``sha256sum: can't open 'PATH': No such file or directory`` (BusyBox). With only the hook there (BusyBox)::

        parse_hook_probe(1, "0b7f...c2  /etc/hotplug.d/iface/17-tunnelfix-wg-endpoint\n",
                         "sha256sum: can't open '/etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint': No such file or directory\n")
        -> {"/etc/hotplug.d/iface/17-tunnelfix-wg-endpoint": {"exists": True, "sha256": "0b7f...c2"},
            "/etc/hotplug.d/mwan3/60-tunnelfix-wg-endpoint": {"exists": False, "sha256": None}}
    """
    paths = HOOK_PROBE[1:]
    found = {path: dict(UNKNOWN) for path in paths}
    if rc not in (0, 1):
        return found
    for line in (stdout or "").splitlines():
        match = _DIGEST_LINE.fullmatch(line)
        if match and match.group(2) in found:
            found[match.group(2)] = {"exists": True, "sha256": match.group(1)}
    for line in (stderr or "").splitlines():
        for path in paths:
            if _MISSING in line and (": %s: " % path in line or "'%s'" % path in line) and found[path]["exists"] is None:
                found[path] = {"exists": False, "sha256": None}
    return found


def hook_state(action) -> dict:
    """``parse_hook_probe`` of ``HOOK_PROBE``'s result in ``action``'s batch (run on its own when the batch lacks it)."""
    res = action.step(HOOK_PROBE, ok_rcs=ANY_EXIT_STATUS)
    return parse_hook_probe(res["rc"], res["stdout"], res["stderr"])


def _tabs(text) -> str:
    """``text`` with each leading 4 spaces of a line as a tab."""
    return re.sub(r"(?m)^(?:    )+", lambda match: "\t" * (len(match.group()) // 4), text)


def _unique(names) -> list:
    """The names that are not empty, each once, in their first place."""
    return list(dict.fromkeys(name for name in names if name))


def hook_content(endpoints, wireguard, preferred_device, uplinks, preferred_uplink) -> str:
    """The hook's text (POSIX sh and awk, run by BusyBox on the router) for these inputs: the plan's.

    ``endpoints``: the IPv4 endpoints it re-points (``hotplug_hook.endpoints``); ``wireguard``: every WireGuard interface
    of uci (its device has its name), handled or not; ``preferred_device``: the preferred uplink's device (None:
    unknown); ``uplinks``: ``uplinks.find_uplinks`` (``interface``, ``device``, ``metered``); ``preferred_uplink``: the
    option openwrt_mwan3_wg_preferred_uplink. The uplinks whose events count are the uplinks' uci interfaces and
    ``preferred_uplink``, and the devices of the uplinks no uci interface names. The hook applies
    ``uplinks.full_tunnel_uplink``'s rule (tests/unit/roles/test_openwrt_mwan3_wg_hook.py runs it under BusyBox sh and
    dash against that function). Byte for byte what the role's template (removed in 0.7) rendered (with the default
    ansible_managed), so a router converged then keeps its hook.
    """
    values = [("ENDPOINTS", list(endpoints)), ("WIREGUARD_DEVICES", sorted(wireguard)),
              ("PREFERRED_DEVICE", [preferred_device or ""]),
              ("UPLINKS", _unique([uplink["interface"] for uplink in uplinks] + [preferred_uplink])),
              ("UPLINK_DEVICES", _unique(uplink["device"] for uplink in uplinks if not uplink["interface"])),
              ("METERED_DEVICES", _unique(uplink["device"] for uplink in uplinks if uplink["metered"]))]
    lines = {name: '%s="%s"' % (name, " ".join(str(value) for value in listed)) for name, listed in values}
    return "".join((_SHEBANG, _HEAD, lines["ENDPOINTS"], "\n", _WIREGUARD, lines["WIREGUARD_DEVICES"], "\n",
                    _PREFERRED, lines["PREFERRED_DEVICE"], "\n", lines["UPLINKS"], "\n", _UPLINK_DEVICES,
                    lines["UPLINK_DEVICES"], "\n", _METERED, lines["METERED_DEVICES"], "\n", _BODY))


def content_sha256(content) -> str:
    """The SHA-256 of ``content`` (UTF-8) as ``sha256sum`` prints it: lowercase hex."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


_SHEBANG = "#!/bin/sh\n#\n# Ansible managed\n#\n"
_HEAD = """# Full-tunnel endpoint hook (tunnelfix.fleet.openwrt_mwan3_wg): full-tunnel WireGuard endpoints need
# their host route (without it their packets loop into the tunnel), so when mwan3 reports an uplink
# connected or disconnected, re-point each endpoint's /32 via the uplink the rule names. The rule is
# stated once, in Python: full_tunnel_uplink in plugins/plugin_utils/faults/endpoint_route/uplinks.py
# (its docstring has it in full). In short: of the main table's IPv4 default routes with a gateway,
# whose device is no WireGuard interface of uci and was not reported disconnected, the preferred
# uplink's unless metered, else the lowest metric of the unmetered ones, and a metered uplink
# (openwrt_mwan3_wg_metered_uplinks) only when nothing else is usable. The awk below is that rule for
# the router (BusyBox sh and awk, no Python there); tests/unit/roles/test_openwrt_mwan3_wg_hook.py runs
# this rendered hook under BusyBox sh and dash, case by case, and fails where its choice differs from
# full_tunnel_uplink's: change both together.
# /sbin/hotplug-call iface sources every script of /etc/hotplug.d/iface/ in a subshell, in name order
# (this one after mwan3's 15-mwan3 and 16-mwan3-user). Two senders: mwan3track, which starts it with
# `env -i` and only ACTION (connected, disconnected, connecting, disconnecting), INTERFACE, DEVICE and
# on its first check FIRSTCONNECT; and netifd (ifup, ifdown, ifupdate, ...), ignored here. connecting
# and disconnecting are a moving score, not a decision: mwan3 changes its own policies only on
# connected and disconnected, and so does this hook. Only the uplinks below count.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
# The plan's list (hotplug_hook_plan in faults/endpoint_route/plan.py): the handled full tunnels' IPv4 endpoints, each
# once. An IPv6 endpoint's /128 goes via an IPv6 gateway, which this hook does not pick.
"""
_WIREGUARD = """# Every WireGuard interface of uci, handled or not (openwrt_mwan3_wg_interfaces may name fewer): no endpoint route
# may lead into a tunnel. netifd names a proto wireguard interface's device after it.
"""
_PREFERRED = """# The preferred uplink's device (openwrt_mwan3_wg_preferred_uplink): taken first while usable and not metered.
"""
_UPLINK_DEVICES = """# An event is matched by its device only for an uplink no uci interface names: wan6 (IPv6, mwan3's own tracker)
# shares wan's device, and its state says nothing about IPv4 over that device.
"""
_METERED = """# The metered uplinks' devices: taken only when no other uplink is usable.
"""
# the script from its DOWN_DIR line on, indented with 4 spaces here (pep8) and with tabs in the hook (_tabs)
_BODY = _tabs("""DOWN_DIR=/var/run/tunnelfix-wg-endpoint

case "$ACTION" in
    connected|disconnected) ;;
    *) exit 0 ;;
esac
uplink=""
case " $UPLINKS " in *" $INTERFACE "*) uplink=1 ;; esac
case " $UPLINK_DEVICES " in *" $DEVICE "*) uplink=1 ;; esac
[ -n "$uplink" ] && [ -n "$INTERFACE" ] && [ -n "$DEVICE" ] || exit 0
case "$ACTION" in
    connected) rm -f "$DOWN_DIR/$DEVICE" ;;
    disconnected) mkdir -p "$DOWN_DIR" && : > "$DOWN_DIR/$DEVICE" ;;
esac

SKIP="$WIREGUARD_DEVICES"
for down in "$DOWN_DIR"/*; do
    [ -e "$down" ] && SKIP="$SKIP ${down##*/}"
done
BEST=$(ip -4 route show default table main | awk -v skip=" $SKIP " -v metered=" $METERED_DEVICES " -v preferred="$PREFERRED_DEVICE" '
    $1 != "default" { next }
    {
        gw = ""; dev = ""; metric = 0
        for (i = 1; i < NF; i++) {
            if ($i == "via") gw = $(i + 1)
            if ($i == "dev") dev = $(i + 1)
            if ($i == "metric") metric = $(i + 1) + 0
        }
        if (gw == "" || dev == "" || index(skip, " " dev " ")) next
        rank = (index(metered, " " dev " ") ? 2 : 0) + (dev == preferred ? 0 : 1)
        if (best == "" || rank < best_rank || (rank == best_rank && metric < best_metric)) {
            best = gw " " dev; best_rank = rank; best_metric = metric
        }
    }
    END { if (best != "") print best }')

if [ -z "$BEST" ]; then
    logger -t tunnelfix-wg-endpoint "no usable uplink for $ENDPOINTS ($ACTION $INTERFACE)" 2>/dev/null || :
    exit 0
fi
gateway=${BEST% *}
device=${BEST#* }
for endpoint in $ENDPOINTS; do
    ip route replace "$endpoint/32" via "$gateway" dev "$device" proto static
    logger -t tunnelfix-wg-endpoint "$endpoint via $gateway dev $device ($ACTION $INTERFACE)" 2>/dev/null || :
done
exit 0
""")
