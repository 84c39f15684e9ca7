# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's fix as roles/wireguard_mtu applies it: what the role reads on the host, and what it changes (pure).

The role takes ``{interface: MTU bytes}`` (``wireguard_mtu_tunnels``: the finding's ``set_mtu_bytes``, or the
operator's) and does, per platform, what ``fix_plan`` decides: THE plan of the fault. ``plan.pmtu_plan`` (the lines
remediate shows) calls ``fix_plan`` too, on the facts turned into ``parse_reading``'s shape (``plan.facts_reading``); the
role calls it on its own fresh read. One decision, one input shape, so they cannot disagree:

- OpenWrt: ``network.<wg>.mtu`` in uci (committed; the ``uci`` action), the clamp include ``mss_clamp_file`` with
  ``mss_clamp_rules`` (``plain_file``) and its path in ``SYSUPGRADE_CONF`` (a ``plain_file`` block: a firmware upgrade
  keeps /etc/config, so the MTU, but a file under /usr/share only where that file or a keep.d list names it), and
  live: ``ip link set dev <wg> mtu N`` and the include loaded into ``inet fw4 mangle_forward`` (``clamp_sync_command``).
  No ifup: netifd's wireguard proto handler sets ``mtu`` only when it sets the interface up (``ip link set mtu`` in
  ``proto_wireguard_setup``, openwrt/openwrt package/network/utils/wireguard-tools/files/wireguard.sh @0a576dec74), and
  an ifup re-creates the tunnel; the committed value is what the next ifup or boot sets, the live change is the same
  number now.
- Linux: ``MTU = N`` in the wg-quick file or ``MTUBytes=N`` in the .netdev (the ``wg_config_mtu`` module), live as above;
  with ``wireguard_mtu_tcp_mtu_probing``, ``net.ipv4.tcp_mtu_probing=1`` live (``sysctl_live``) and in
  ``TCP_MTU_PROBING_FILE`` (``plain_file``), each only where ``tcp_mtu_probing_plan`` says it differs.

``read_command`` is the one python-free read (POSIX sh, BusyBox too); ``parse_reading`` its parse; ``fix_plan`` the
decision: per tunnel what differs, one line per change (``changes``: the plan's lines), the commands guarded_apply runs
(``apply``) and reverts with (``restore``), the files it snapshots, and every refusal (``errors``) naming the option and
the value.
"""

from __future__ import annotations

import hashlib
import re
import shlex

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.option_text import (
    absolute_path_errors, bool_errors, shown, whole_number_in)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import carries_ipv6
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.tunnel_mtu import (
    IPV6_MIN_MTU_BYTES, MAX_MTU_BYTES, MIN_MTU_BYTES)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import RULE as INTERFACE_NAME_RULE, is_interface_name

OPTION = "wireguard_mtu_tunnels"
MARK = "@@tunnelfix-mtu"
# fw4's table and the chain its chain-post/mangle_forward includes go to (the end of it: firewall4 ruleset.uc)
FW4_TABLE, FW4_CHAIN = "inet fw4", "mangle_forward"
FW4_CHAIN_SPEC = "type filter hook forward priority mangle; policy accept;"
PLATFORMS = ("linux", "openwrt")
# Where the role keeps net.ipv4.tcp_mtu_probing=1 across reboots, and the file's whole content (tcp_mtu_probing_plan)
TCP_MTU_PROBING_FILE = "/etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf"
TCP_MTU_PROBING_CONTENT = ("# tunnelfix.fleet wireguard_mtu (wireguard_mtu_tcp_mtu_probing): probe smaller TCP segments on a black hole\n"
                           "net.ipv4.tcp_mtu_probing = 1\n")

# fw4's include directory for rules appended to its mangle_forward chain (module doc)
MSS_CLAMP_DIR = "/usr/share/nftables.d/chain-post/mangle_forward"
# IP + TCP header bytes in front of a segment: MSS = MTU minus these
TCP_IP_HEADER_BYTES = {4: 40, 6: 60}
# sysupgrade keeps /etc/config (the uci mtu) but a file under /usr/share only when a line of this file (or of a
# /lib/upgrade/keep.d file) names it: the role adds the clamp's path in a marked block (docs/openwrt-fidelity.md)
SYSUPGRADE_CONF = "/etc/sysupgrade.conf"


def mss_clamp_file(interface) -> str:
    """The fw4 include that clamps ``interface``'s MSS: ``MSS_CLAMP_DIR/tunnelfix-mss-<interface>.nft``."""
    return "%s/tunnelfix-mss-%s.nft" % (MSS_CLAMP_DIR, interface)


def sysupgrade_marker(interface) -> str:
    """The text of the ``# BEGIN``/``# END`` lines around ``interface``'s clamp path in ``SYSUPGRADE_CONF`` (``plain_file``'s
    ``marker``; sysupgrade skips lines starting with ``#``)."""
    return "tunnelfix.fleet wireguard_mtu %s" % interface


def mss_clamp_comment(interface) -> str:
    """The comment every clamp rule of ``interface`` carries: how the fixing role finds its own live rules."""
    return "tunnelfix-mss %s" % interface


def mss_clamp_rules(interface, mtu) -> list:
    """The nft rules (fw4 include text, one per line) that clamp TCP SYNs into and out of ``interface`` to ``mtu``::

        ("wg0", 1340) -> ['oifname "wg0" meta nfproto ipv4 tcp flags syn / fin,syn,rst tcp option maxseg size > 1300 '
                          'tcp option maxseg size set 1300 comment "tunnelfix-mss wg0"', ...]   # oif/iif x IPv4/IPv6

    A SYN or SYN-ACK (the flags fw4's own clamp matches) whose MSS is larger is lowered; a smaller MSS stays (a fixed
    ``set`` alone would raise it, and a peer behind a narrower link would then get segments it cannot carry). Written
    as ``nft list`` prints it back (nftables 1.0.6: ``syn / fin,syn,rst``), so the live rule and the file compare equal.
    """
    rules = []
    for way in ("oifname", "iifname"):
        for family, name in ((4, "ipv4"), (6, "ipv6")):
            mss = mtu - TCP_IP_HEADER_BYTES[family]
            rules.append('%s "%s" meta nfproto %s tcp flags syn / fin,syn,rst tcp option maxseg size > %d '
                         'tcp option maxseg size set %d comment "%s"' % (way, interface, name, mss, mss, mss_clamp_comment(interface)))
    return rules


def check_tunnels(tunnels) -> list:
    """The messages for a bad ``wireguard_mtu_tunnels`` (a dict of interface name -> MTU bytes 576-65535), [] when good."""
    if not isinstance(tunnels, dict):
        return ["%s must be a dict of interface name -> MTU bytes, got %s" % (OPTION, shown(tunnels))]
    errors = []
    for name, mtu in tunnels.items():
        if not is_interface_name(name):
            errors.append("%s: %s is not an interface name (%s)" % (OPTION, shown(name), INTERFACE_NAME_RULE))
            continue
        if _mtu(mtu) is None:
            errors.append("%s: %s must be %d-%d bytes, got %s" % (OPTION, name, MIN_MTU_BYTES, MAX_MTU_BYTES, shown(mtu)))
    return errors


def role_option_errors(options) -> list:
    """Every problem with the role's options (``{option name: value}``), one message each naming the option and the value:
    the tunnels (``check_tunnels``), the two directories, the rollback timeout, the booleans; [] when all is well.
    The fault declares it for roles/wireguard_mtu (``Fault.option_checks``; ``fix/role_options.option_errors`` runs it)."""
    errors = check_tunnels(options.get(OPTION))
    errors += absolute_path_errors(options, ("wireguard_mtu_config_dir", "wireguard_mtu_networkd_dir"))
    rollback = options.get("wireguard_mtu_rollback_timeout_s")
    if not whole_number_in(rollback, 20, 3600):
        errors.append("wireguard_mtu_rollback_timeout_s must be 20-3600 seconds, got %s" % shown(rollback))
    return errors + bool_errors("wireguard_mtu", options)


def _mtu(value):
    """``value`` as MTU bytes (an int or a string of digits, ``-e``) when it is one in MIN_MTU_BYTES-MAX_MTU_BYTES, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit() and value.strip().isascii():
        value = int(value.strip())
    return value if isinstance(value, int) and MIN_MTU_BYTES <= value <= MAX_MTU_BYTES else None


def _checked(tunnels):
    errors = check_tunnels(tunnels)
    if errors:
        raise ValueError("; ".join(errors))
    return {name: _mtu(mtu) for name, mtu in sorted(tunnels.items())}


# What each config file sets now, read on the host with awk (BusyBox too): one ``mtu VALUE`` line per setting the
# module (wg_config_mtu) would edit, nothing when the file sets none. wg-quick: ``MTU =`` (any case) in [Interface]
# (any case), ``#`` comments ignored, the value up to a space or ``#`` (_wg_quick.set_wg_quick_mtu); .netdev:
# ``MTUBytes=`` in [NetDev] (case as written), ``#``/``;`` comment lines ignored (_networkd_netdev.set_netdev_mtu).
WG_QUICK_MTU_AWK = (r'{ l = $0; sub(/\r$/, "", l); c = l; sub(/#.*/, "", c); gsub(/^[ \t]+|[ \t]+$/, "", c); if (c == "") next; '
                    r'if (c ~ /^\[[ \t]*[A-Za-z]+[ \t]*\]$/) { h = c; gsub(/[ \t]/, "", h); s = (tolower(h) == "[interface]"); next } '
                    r'if (s && tolower(l) ~ /^[ \t]*mtu[ \t]*=/) { v = l; sub(/^[^=]*=[ \t]*/, "", v); sub(/[# \t].*/, "", v); '
                    r'print "mtu " v } }')
NETDEV_MTU_AWK = (r'{ l = $0; sub(/\r$/, "", l); c = l; gsub(/^[ \t]+|[ \t]+$/, "", c); if (c == "" || c ~ /^[#;]/) next; '
                  r'if (c ~ /^\[.*\]$/) { h = substr(c, 2, length(c) - 2); gsub(/^[ \t]+|[ \t]+$/, "", h); s = (h == "NetDev"); next } '
                  r'if (s && l ~ /^[ \t]*MTUBytes[ \t]*=[ \t]*[^ \t]*[ \t]*$/) { v = l; sub(/^[^=]*=[ \t]*/, "", v); '
                  r'sub(/[ \t]+$/, "", v); print "mtu " v } }')


# The lines of SYSUPGRADE_CONF that are the path p, spaces and tabs around it (and a CR) dropped: sysupgrade reads the
# file's lines as words of `find` (package/base-files/files/sbin/sysupgrade), so these name the file as p does.
KEEP_LINES_AWK = r'{ sub(/^[ \t]+/, ""); sub(/[ \t\r]+$/, "") } $0 == p { n++ } END { print n + 0 }'


def _ere(name):
    """``name`` (an interface name: letters, digits, ``_.@=+-``) as a literal in a POSIX ERE or BRE."""
    return re.sub(r"([.+])", r"\\\1", name)


def read_command(tunnels, platform, config_dir="/etc/wireguard", networkd_dir="/etc/systemd/network") -> str:
    """The python-free read of what the fix needs, one POSIX sh command; each part follows a line ``@@tunnelfix-mtu WHAT [IF]``:

    per tunnel ``mtu`` (``/sys/class/net/IF/mtu``: the live MTU, nothing when the device is absent) and ``ipv6`` (its IPv6
    addresses, ``ip -o -6 addr show``, and its peers' AllowedIPs, ``wg show IF allowed-ips`` without the keys); OpenWrt:
    ``uci`` (``network.IF.proto``), ``ucimtu`` (``network.IF.mtu``), ``uciaddr`` (``network.IF.addresses``), ``clampfile``
    (``sha256sum`` of ``mss_clamp_file``, nothing when absent), ``keep`` (how many lines of ``SYSUPGRADE_CONF``, blanks
    around them dropped, are ``mss_clamp_file``'s path: ``KEEP_LINES_AWK``; nothing when the file is absent) and once
    ``nft`` (``nft -a list chain inet fw4 mangle_forward``) with ``nft-rc``; Linux: ``config`` (``wg-quick PATH`` for
    ``config_dir/IF.conf``, ``netdev PATH`` for each .netdev of ``networkd_dir`` with ``Name=IF`` and ``Kind=wireguard``,
    each followed by ``mtu VALUE`` for each MTU setting the file has: ``WG_QUICK_MTU_AWK``, ``NETDEV_MTU_AWK``) and once
    ``probing`` (``net.ipv4.tcp_mtu_probing``) and ``probing-file`` (``sha256sum`` of ``TCP_MTU_PROBING_FILE``, nothing
    when it is absent). Raises ValueError naming the option for bad tunnels or platform.
    """
    if platform not in PLATFORMS:
        raise ValueError("platform must be one of %s, got %r" % (", ".join(PLATFORMS), platform))
    parts = []
    for name in _checked(tunnels):
        parts += ["echo '%s mtu %s'" % (MARK, name), "cat %s 2>/dev/null" % shlex.quote("/sys/class/net/%s/mtu" % name),
                  "echo '%s ipv6 %s'" % (MARK, name), "ip -o -6 addr show dev %s 2>/dev/null" % shlex.quote(name),
                  "wg show %s allowed-ips 2>/dev/null | cut -f2" % shlex.quote(name)]
        if platform == "openwrt":
            for what, option in (("uci", "proto"), ("ucimtu", "mtu"), ("uciaddr", "addresses")):
                parts += ["echo '%s %s %s'" % (MARK, what, name), "uci -q get %s" % shlex.quote("network.%s.%s" % (name, option))]
            clamp = shlex.quote(mss_clamp_file(name))
            parts += ["echo '%s clampfile %s'" % (MARK, name), "if [ -f %s ]; then sha256sum < %s; fi" % (clamp, clamp),
                      "echo '%s keep %s'" % (MARK, name),
                      "if [ -f %s ]; then awk -v p=%s %s %s; fi" % (SYSUPGRADE_CONF, clamp, shlex.quote(KEEP_LINES_AWK), SYSUPGRADE_CONF)]
        else:
            conf = "%s/%s.conf" % (config_dir.rstrip("/"), name)
            netdevs = shlex.quote(networkd_dir.rstrip("/") + "/") + "*.netdev"   # "/" -> /*.netdev
            parts += ["echo '%s config %s'" % (MARK, name),
                      "if [ -f %s ]; then printf 'wg-quick %%s\\n' %s; awk %s %s; fi"
                      % (shlex.quote(conf), shlex.quote(conf), shlex.quote(WG_QUICK_MTU_AWK), shlex.quote(conf)),
                      "for f in %s; do [ -f \"$f\" ] && grep -Eq '^[[:space:]]*Kind[[:space:]]*=[[:space:]]*wireguard"
                      "[[:space:]]*$' \"$f\" && grep -Eq '^[[:space:]]*Name[[:space:]]*=[[:space:]]*%s[[:space:]]*$' \"$f\" "
                      "&& printf 'netdev %%s\\n' \"$f\" && awk %s \"$f\"; done" % (netdevs, _ere(name), shlex.quote(NETDEV_MTU_AWK))]
    if platform == "openwrt":
        parts += ["echo '%s nft'" % MARK, "nft -a list chain %s %s 2>/dev/null" % (FW4_TABLE, FW4_CHAIN),
                  "echo \"%s nft-rc $?\"" % MARK]
    else:
        parts += ["echo '%s probing'" % MARK, "cat /proc/sys/net/ipv4/tcp_mtu_probing 2>/dev/null",
                  "echo '%s probing-file'" % MARK, "if [ -f %s ]; then sha256sum < %s; fi" % ((TCP_MTU_PROBING_FILE,) * 2)]
    return "; ".join(parts) + "; true"


def parse_reading(text) -> dict:
    """``read_command``'s output -> ``{"interfaces": {IF: {...}}, "nft_rc": int|None, "nft_rules": [str], "tcp_mtu_probing": int|None,
    "tcp_mtu_probing_file_sha256": str|None}`` (the sysctl's value and the SHA-256 of ``TCP_MTU_PROBING_FILE``; None: not
    read, or no such file).

    Per interface: ``live_mtu_bytes`` (None: no such device), ``ipv6_inside`` (``reads.carries_ipv6``, the rule's own test
    on what this read: an IPv6 prefix in a peer's AllowedIPs, or an IPv6 address other than link-local on the device
    when it is there or in uci ``addresses`` (OpenWrt: the next ifup adds them); None: unknown, a Linux device that is
    not there),
    ``uci_proto``/``uci_mtu`` (OpenWrt; None when unset), ``clamp_file_sha256`` (OpenWrt: the SHA-256 of
    ``mss_clamp_file``, None when absent), ``clamp_kept_lines`` (OpenWrt: how many lines of ``SYSUPGRADE_CONF`` name that
    file, None when ``SYSUPGRADE_CONF`` is absent or was not read), ``configs`` (Linux: ``[{"kind": "wg-quick"|"netdev", "path": str, "mtu":
    "1420"|None}]``, ``mtu`` the value the file sets, None when it sets none; two settings joined with ", ").
    ``nft_rules``: the chain's rules as ``nft -a`` lists them, without the
    ``# handle N``. Raises ParseError for text that is not this command's output.
    """
    if not isinstance(text, str):
        raise ParseError("the wireguard_mtu read must be text, got %s" % type(text).__name__)
    out = {"interfaces": {}, "nft_rc": None, "nft_rules": [], "tcp_mtu_probing": None, "tcp_mtu_probing_file_sha256": None}
    what, name, seen = None, None, {}   # seen: {IF: {"allowed", "live", "configured"}} for reads.carries_ipv6
    for line in text.splitlines():
        if line.startswith(MARK + " "):
            words = line[len(MARK) + 1:].split()
            what, name = words[0], (words[1] if len(words) > 1 else None)
            if what == "nft-rc":
                out["nft_rc"] = int(name) if name and name.isdigit() else None
            elif name is not None:
                out["interfaces"].setdefault(name, {"live_mtu_bytes": None, "uci_proto": None, "uci_mtu": None, "clamp_file_sha256": None,
                                                    "clamp_kept_lines": None, "configs": []})
                seen.setdefault(name, {"allowed": [], "live": [], "configured": None})
                if what == "uciaddr" and seen[name]["configured"] is None:   # OpenWrt: read, even when unset
                    seen[name]["configured"] = []
            continue
        text_line = line.strip()
        if not text_line:
            continue
        if what is None:
            raise ParseError("the wireguard_mtu read printed %r before its first section" % text_line[:80])
        info = out["interfaces"].get(name)
        if what == "mtu":
            if not text_line.isdigit():
                raise ParseError("/sys/class/net/%s/mtu: expected a number, got %r" % (name, text_line[:80]))
            info["live_mtu_bytes"] = int(text_line)
        elif what in ("ipv6", "uciaddr"):
            words = text_line.split()
            if what == "uciaddr":
                seen[name]["configured"].extend(words)
            elif "inet6" in words[:-1]:   # ip -o -6 addr show: "3: wg0    inet6 fd77::2/64 scope global ..."
                seen[name]["live"].append(words[words.index("inet6") + 1])
            else:                         # wg show IF allowed-ips | cut -f2: the peers' prefixes
                seen[name]["allowed"].extend(words)
        elif what == "uci":
            info["uci_proto"] = text_line
        elif what == "ucimtu":
            info["uci_mtu"] = text_line
        elif what == "keep":
            if not text_line.isdigit() or not text_line.isascii():
                raise ParseError("lines of %s naming %s: expected a number, got %r" % (SYSUPGRADE_CONF, mss_clamp_file(name), text_line[:80]))
            info["clamp_kept_lines"] = int(text_line)
        elif what == "config":
            kind, _sep, path = text_line.partition(" ")
            if kind == "mtu" and info["configs"]:   # the awk of the file before: one line per MTU setting it has
                config = info["configs"][-1]
                config["mtu"] = path if config["mtu"] is None else "%s, %s" % (config["mtu"], path)
                continue
            if kind not in ("wg-quick", "netdev") or not path:
                raise ParseError("config of %s: expected 'wg-quick PATH' or 'netdev PATH', got %r" % (name, text_line[:120]))
            info["configs"].append({"kind": kind, "path": path, "mtu": None})
        elif what == "nft":
            if re.search(r"# handle \d+$", text_line) and not text_line.startswith("chain "):   # nft 1.0.6: no handle on "table"
                out["nft_rules"].append(re.sub(r"\s*# handle \d+$", "", text_line))
        elif what == "probing":
            out["tcp_mtu_probing"] = int(text_line) if text_line.isdigit() else None
        elif what in ("probing-file", "clampfile"):   # sha256sum of stdin: "HEX  -"
            digest = text_line.split()[0]
            if not re.fullmatch(r"[0-9a-f]{64}", digest):
                raise ParseError("sha256sum of %s: expected a SHA-256 digest, got %r"
                                 % (TCP_MTU_PROBING_FILE if what == "probing-file" else mss_clamp_file(name), text_line[:80]))
            if what == "clampfile":
                info["clamp_file_sha256"] = digest
            else:
                out["tcp_mtu_probing_file_sha256"] = digest
    for name, read in seen.items():
        # the device is there (its MTU, or an address, was read): ip's listing of it is its live addresses, none too.
        # This read does not tell a device that is down (its IPv6 addresses dropped) from one up without IPv6, as the
        # facts' link_ipv6 does (it leaves a down device out): there the rule falls back to the configured addresses
        # and names 1280 where they hold IPv6, which the role accepts all the same
        there = out["interfaces"][name]["live_mtu_bytes"] is not None or bool(read["live"])
        out["interfaces"][name]["ipv6_inside"] = carries_ipv6(read["allowed"], read["live"] if there else None, read["configured"])
    return out


def clamp_sync_command(interface) -> str:
    """One sh command that makes ``interface``'s live clamp rules in ``inet fw4 mangle_forward`` what its include file holds:
    in one ``nft -f`` transaction, delete every rule carrying ``mss_clamp_comment`` and, when the file is there,
    load it the way fw4 does (an ``include`` at the end of the chain, declared as fw4 declares it; on a router without
    fw4 this creates that table and chain). Run again after guarded_apply restored the file, it restores the old rules."""
    path = mss_clamp_file(interface)
    comment = _ere(mss_clamp_comment(interface))
    declare = " ".join(shlex.quote(line) for line in (
        "table %s {" % FW4_TABLE, "chain %s {" % FW4_CHAIN, FW4_CHAIN_SPEC, 'include "%s"' % path, "}", "}"))
    return ("{ nft -a list chain %s %s 2>/dev/null | sed -n 's/.* comment \"%s\" # handle \\([0-9][0-9]*\\)$/delete rule %s %s handle \\1/p'; "
            "if [ -f %s ]; then printf '%%s\\n' %s; fi; } | nft -f -"
            % (FW4_TABLE, FW4_CHAIN, comment, FW4_TABLE, FW4_CHAIN, shlex.quote(path), declare))


def _config(name, info, errors, config_dir, networkd_dir):
    """The file that configures ``name`` on Linux (wg-quick first, as wg-quick owns a name it has a file for), or None."""
    configs = info.get("configs") or []
    quick = [config for config in configs if config["kind"] == "wg-quick"]
    netdevs = [config for config in configs if config["kind"] == "netdev"]
    if quick:
        return quick[0]
    if len(netdevs) == 1:
        return netdevs[0]
    if netdevs:
        errors.append("%s: %s is configured by %d .netdev files (%s): keep one" % (
            OPTION, name, len(netdevs), ", ".join(config["path"] for config in netdevs)))
        return None
    errors.append("%s: no configuration for %s (no %s/%s.conf and no .netdev with Name=%s and Kind=wireguard in %s)"
                  % (OPTION, name, config_dir.rstrip("/"), name, name, networkd_dir.rstrip("/")))
    return None


def _in_use(entry, written):
    """True when a uci or file line must name the live MTU: it changes too, and it is not the value written."""
    return entry["live_change"] and str(entry["live_mtu_bytes"]) != written


def _change_lines(entry):
    """The plan's lines for one tunnel of ``fix_plan``, one per change the role makes: OpenWrt the uci ``mtu`` (when uci's
    value differs: ``uci_change``) and the clamp include (``write``: the file differs; ``load``: only the live rules do) and its line in ``SYSUPGRADE_CONF``
    (``keep``: no line there names the include);
    Linux the file's ``MTU =``/``MTUBytes=`` (when the file's value differs: ``file_change``); and ``live MTU`` when only
    the live MTU differs (with a uci or file line, that line names the MTU in use when it is not the value written,
    ``(1420 in use)``: it changes too). Nothing for a tunnel refused."""
    name, mtu, live = entry["interface"], entry["mtu_bytes"], entry["live_mtu_bytes"]
    lines = []
    if entry["uci_change"]:
        written = entry["uci_mtu"]
        was = "unset" if written is None else "'%s'" % written
        lines.append("network.%s.mtu: %s%s -> '%d'" % (name, was, " (%d in use)" % live if _in_use(entry, written) else "", mtu))
    if entry["file_change"]:
        config = entry["config"]
        key = "[Interface] MTU = " if config["kind"] == "wg-quick" else "[NetDev] MTUBytes="
        written = config.get("mtu")
        lines.append("%s: %s%d (now %s%s)" % (config["path"], key, mtu, "unset" if written is None else written,
                                              ", %d in use" % live if _in_use(entry, written) else ""))
    if entry["live_change"] and not lines:
        lines.append("%s: live MTU %d -> %d" % (name, live, mtu))
    clamp = entry["clamp"]
    if clamp is not None and (clamp["file_change"] or clamp["live_change"]):
        lines.append("%s %s: clamp TCP MSS of %s to %d (IPv4) / %d (IPv6) both ways" % (
            "write" if clamp["file_change"] else "load", clamp["path"], name, mtu - TCP_IP_HEADER_BYTES[4], mtu - TCP_IP_HEADER_BYTES[6]))
    if clamp is not None and clamp["keep"]["change"]:
        lines.append("%s: keep %s across sysupgrade (the clamp of %s)" % (clamp["keep"]["path"], clamp["path"], name))
    return lines


def tcp_mtu_probing_plan(wanted, platform, reading) -> dict:
    """THE decision on ``net.ipv4.tcp_mtu_probing`` (``wireguard_mtu_tcp_mtu_probing``: ``wanted``, a bool), one flag per
    change the role's tasks make (tasks/mtu.yml runs each step only where its flag is true)::

        {"live_change": True,     # the live value is not 1 (or was not read: None): sysctl_live sets it
         "file_change": True,     # TCP_MTU_PROBING_FILE is not TCP_MTU_PROBING_CONTENT (absent, other, or not read)
         "path": "/etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf", "content": "# tunnelfix.fleet ...\\n...= 1\\n",
         "changes": ["net.ipv4.tcp_mtu_probing=1 live", "write /etc/sysctl.d/...conf: net.ipv4.tcp_mtu_probing = 1"]}

    Both flags are false (and ``changes`` empty) when the option is off or on OpenWrt (left alone: the sysctl helps only
    the TCP a host terminates itself, and a router forwards). ``reading``: ``parse_reading``'s dict (``tcp_mtu_probing``,
    ``tcp_mtu_probing_file_sha256``).
    """
    on = bool(wanted) and platform == "linux"
    digest = hashlib.sha256(TCP_MTU_PROBING_CONTENT.encode()).hexdigest()
    plan = {"live_change": on and reading.get("tcp_mtu_probing") != 1, "file_change": on and reading.get("tcp_mtu_probing_file_sha256") != digest,
            "path": TCP_MTU_PROBING_FILE, "content": TCP_MTU_PROBING_CONTENT, "changes": []}
    if plan["live_change"]:
        plan["changes"].append("net.ipv4.tcp_mtu_probing=1 live")
    if plan["file_change"]:
        plan["changes"].append("write %s: net.ipv4.tcp_mtu_probing = 1" % TCP_MTU_PROBING_FILE)
    return plan


def fix_plan(tunnels, platform, reading, config_dir="/etc/wireguard", networkd_dir="/etc/systemd/network", tcp_mtu_probing=False) -> dict:
    """What the role changes on this host (module doc), from ``tunnels`` (``{IF: MTU}``) and ``parse_reading``'s dict; each
    write step of the role runs only where its flag here is true (a converged host: ``changes`` [] and no step runs)::

        {"errors": [],   # each names wireguard_mtu_tunnels and the value: the role fails with them before any change
         "changes": ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"],   # one line per change (_change_lines)
         "tunnels": [{"interface": "wg0", "mtu_bytes": 1340, "live_mtu_bytes": 1420, "ipv6_inside": False,
                      "live_change": True,                        # the device is there with another MTU
                      "uci_mtu": "1420" | None, "uci_change": True,   # OpenWrt: network.wg0.mtu differs (the uci step)
                      "config": {"kind": "wg-quick", "path": "/etc/wireguard/wg0.conf", "mtu": None} | None,   # Linux
                      "file_change": True,                        # Linux: the file's MTU setting differs (wg_config_mtu)
                      "clamp": {"path": ..., "content": "rule\\n...", "live_rules": [...], "live_change": True,
                                "file_change": True,              # OpenWrt: the include's content differs (plain_file)
                                "keep": {"path": "/etc/sysupgrade.conf", "line": path, "marker": "tunnelfix.fleet wireguard_mtu wg0",
                                         "change": True}} | None}],   # no line of it names the include: plain_file adds the block
         "live_change": True, "apply": "ip link set dev wg0 mtu 1340 && ...", "restore": "ip link set dev wg0 mtu 1420; ...",
         "files": ["/etc/config/network", "/etc/sysupgrade.conf", clamp path, ...] | [config paths],   # guarded_apply's snapshot
         "diff": {"before": "wg0: mtu 1420\\n...", "after": "wg0: mtu 1340\\n..."},   # the live state
         "tcp_mtu_probing": {"live_change": False, "file_change": False, ...}}   # tcp_mtu_probing_plan

    ``tcp_mtu_probing``: ``wireguard_mtu_tcp_mtu_probing`` (a bool); the plan's ``"tcp_mtu_probing"`` is
    ``tcp_mtu_probing_plan``'s decision (whatever the tunnels; Linux only), and ``changes`` ends with its lines.

    Refused (``errors``): an MTU under 1280 where IPv6 runs inside the tunnel (the kernel drops IPv6 from a device under
    it); on OpenWrt an interface whose uci proto is not wireguard; on Linux one no file configures; nft missing (rc 127).
    Raises ValueError for bad ``tunnels`` (``check_tunnels``) or platform, ParseError for a ``reading`` of the wrong shape.
    """
    if platform not in PLATFORMS:
        raise ValueError("platform must be one of %s, got %r" % (", ".join(PLATFORMS), platform))
    if not isinstance(reading, dict) or not isinstance(reading.get("interfaces"), dict):
        raise ParseError("reading must be parse_reading's dict, got %r" % (reading,))
    errors, planned, apply, restore, before, after, changes = [], [], [], [], [], [], []
    if platform == "openwrt" and tunnels and reading.get("nft_rc") == 127:
        errors.append("%s: nft is not installed on this router: the MSS clamp cannot be loaded" % OPTION)
    files = ["/etc/config/network", SYSUPGRADE_CONF] if platform == "openwrt" and tunnels else []
    for name, mtu in _checked(tunnels).items():
        info = reading["interfaces"].get(name) or {}
        live = info.get("live_mtu_bytes")
        entry = {"interface": name, "mtu_bytes": mtu, "live_mtu_bytes": live, "ipv6_inside": bool(info.get("ipv6_inside")),
                 "live_change": live is not None and live != mtu, "uci_mtu": info.get("uci_mtu"), "uci_change": False,
                 "config": None, "file_change": False, "clamp": None}
        if entry["ipv6_inside"] and mtu < IPV6_MIN_MTU_BYTES:
            errors.append("%s: %s=%d is below %d bytes, the least IPv6 takes, and IPv6 runs inside %s (an address or a "
                          "peer's AllowedIPs): the kernel would drop IPv6 from it" % (OPTION, name, mtu, IPV6_MIN_MTU_BYTES, name))
        if platform == "openwrt":
            if info.get("uci_proto") != "wireguard":
                errors.append("%s: %s is not a WireGuard interface in uci (network.%s.proto is %s)"
                              % (OPTION, name, name, "'%s'" % info["uci_proto"] if info.get("uci_proto") else "unset"))
            wanted = mss_clamp_rules(name, mtu)
            mine = [rule for rule in reading.get("nft_rules") or [] if rule.endswith('comment "%s"' % mss_clamp_comment(name))]
            content = "\n".join(wanted) + "\n"
            entry["uci_change"] = info.get("uci_proto") == "wireguard" and entry["uci_mtu"] != str(mtu)
            kept = info.get("clamp_kept_lines")
            entry["clamp"] = {"path": mss_clamp_file(name), "content": content, "live_rules": mine, "live_change": mine != wanted,
                              "file_change": info.get("clamp_file_sha256") != hashlib.sha256(content.encode()).hexdigest(),
                              # sysupgrade keeps the include only where a line names it; one of the user's own will do
                              "keep": {"path": SYSUPGRADE_CONF, "line": mss_clamp_file(name), "marker": sysupgrade_marker(name),
                                       "change": not kept}}
            files.append(mss_clamp_file(name))
        else:
            entry["config"] = _config(name, info, errors, config_dir, networkd_dir)
            if entry["config"] is not None:
                files.append(entry["config"]["path"])
                entry["file_change"] = entry["config"].get("mtu") != str(mtu)
        changes.extend(_change_lines(entry))
        if entry["live_change"]:
            apply.append("ip link set dev %s mtu %d" % (shlex.quote(name), mtu))
            restore.append("ip link set dev %s mtu %d" % (shlex.quote(name), live))
            before.append("%s: mtu %d" % (name, live))
            after.append("%s: mtu %d" % (name, mtu))
        if entry["clamp"] and entry["clamp"]["live_change"]:
            apply.append(clamp_sync_command(name))
            restore.append(clamp_sync_command(name))
            before.extend("%s: %s" % (name, rule) for rule in entry["clamp"]["live_rules"] or ["no MSS clamp rule"])
            after.extend("%s: %s" % (name, rule) for rule in mss_clamp_rules(name, mtu))
        planned.append(entry)
    probing = tcp_mtu_probing_plan(tcp_mtu_probing, platform, reading)
    changes.extend(probing["changes"])
    return {"errors": errors, "changes": changes, "tcp_mtu_probing": probing, "tunnels": planned, "live_change": bool(apply), "apply": " && ".join(apply),
            "restore": "; ".join(restore), "files": files,
            "diff": {"before": "".join(line + "\n" for line in before), "after": "".join(line + "\n" for line in after)}}
