# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's reading: a don't-fragment ping ladder (a POSIX sh snippet) and the parse of its output.

What the ladder measures: the largest ICMP echo payload that reaches ``target`` and comes back with
the don't-fragment rule in force, bisected between ``low`` and ``high`` payload bytes. The path MTU
is that payload plus the echo's headers (ICMP_HEADER_BYTES: 20 IPv4 + 8 ICMP = 28; 40 IPv6 + 8
ICMPv6 = 48). A black hole (a hop that drops packets over a size and sends no ICMP) shows as silent
loss above the size; a path that answers with ICMP "fragmentation needed" / "packet too big"
shows as too-big probes.

How each ping keeps DF (recorded outputs: tests/unit/fixtures/ping_M_do/, busybox_ping/):

- iputils ``ping -M do`` (Debian, any Linux host with iputils-ping; OpenWrt only with the optional
  ``iputils-ping`` package, openwrt/packages net/iputils): the probe leaves with DF and never
  fragmented. Too big for what the host already knows (the interface MTU or a path MTU learned
  from ICMP) it is not sent: ``ping: local error: message too long, mtu=1400`` (IPv4; IPv6 prints
  ``mtu: 1400``; iputils ping/ping.c, ping/ping6_common.c @9900265d41; older releases write
  ``Message too long``). An ICMP answer from a hop
  prints ``From <hop> icmp_seq=1 Frag needed and DF set (mtu = 1400)`` (IPv6 ``Packet too big:
  mtu=1400``). Exit status 0 reply, 1 no reply (also after those errors), 2 other errors.
- BusyBox ``ping`` (OpenWrt's default: PING, PING6 and FEATURE_FANCY_PING are on in openwrt/openwrt
  package/utils/busybox/Config-defaults.in @012feaa61f) has no DF option and sets no socket option
  (BusyBox networking/ping.c @371fe9f71d). Linux then applies its default, IP_PMTUDISC_WANT
  (``net.ipv4.ip_no_pmtu_disc`` 0; OpenWrt's package/base-files/files/etc/sysctl.d/10-default.conf
  does not set it): DF is set on every packet that fits the MTU the kernel knows for the route, and
  a larger one is fragmented locally. So up to the interface MTU a BusyBox probe is a DF probe
  (recorded: its 1400-byte payload over a hop with a 1400-byte link was lost and the sender learned
  ``mtu 1400`` from the hop's answer, which a hop sends only for a DF packet). Once the kernel learned a
  smaller path MTU (from such an ICMP), it fragments larger probes and they pass; the ladder sees
  that in the kernel's counters (/proc/net/snmp ``Ip: FragOKs``, /proc/net/snmp6 ``Ip6FragOKs``
  grew): such a probe counts as too-big-local, as iputils would have refused it. A lost BusyBox
  probe during which an ICMP error arrived (``Icmp: InDestUnreachs``, ``Icmp6InPktTooBigs``) is
  ``icmp-error``. On a busy router other traffic can move these counters: they can only make a
  probe count as not passing, so the ladder can read a smaller size, never a larger one. BusyBox
  cannot show a path MTU learned before the ladder (its ``ip route get`` prints no ``mtu``): a
  probe above it is fragmented and counts as too-big-local, which is again the counter's reading.
  Inside a tunnel the counter also sees the outer packets this host fragments for WireGuard (which
  sends without DF and lets the host fragment: ``df`` 0 and ``ignore_df`` in send4/send6,
  WireGuard/wireguard-linux drivers/net/wireguard/socket.c @0e9725840f): an inner probe that needed that counts as too-big-local with BusyBox, while
  iputils' ``-M do`` (DF on the inner packet only) passes it. The BusyBox reading is then the largest
  inner packet that needs no outer fragmentation; the iputils one, the largest the tunnel delivers.
  BusyBox ``traceroute -F`` is no help: its DF option sets IP_DONTFRAG, which Linux does not
  define, so it is compiled out (networking/traceroute.c @371fe9f71d).

The snippet prints one line per size probed and a result line::

    ladder tool=iputils family=4 target=10.198.2.2 low=1200 high=1472 interval_ms=200 attempts=2
    probe 1200 passed attempts=1
    probe 1472 failed attempts=2
    probe 1336 passed attempts=1
    ...
    result largest=1372

A probe's result is ``passed``, ``failed`` (no reply, no ICMP: silent loss; retried up to
``attempts`` times), ``too-big-local`` (not sent or fragmented by the host: it knows a smaller
MTU; ``mtu=N`` where iputils names it), ``too-big-remote`` (iputils: a hop answered with ICMP,
``mtu=N``), ``icmp-error`` (BusyBox: an ICMP error arrived while the probe was lost) or ``error``
(ping exited 2 or more, or 1 without its statistics line: it sent nothing, as for no route, a bad
address, an option this ping lacks, no ping at all; the ladder stops: ``result error rc=N``).
Every ping runs with ``LC_ALL=C``: iputils built with NLS prints its messages, the statistics line too, in the
caller's language (``1 Pakete übertragen``, iputils po/de.po), and ssh forwards the operator's ``LANG``/``LC_*``.
``result none``: the smallest size did not pass, so nothing was bisected. When the bisection ends on
a size that was silently lost (the black-hole case), that size is probed once more: a chance loss
earlier would have steered the bisection below the real size, and the size then passes, which the
parse names as a contradiction instead of reporting the smaller size. Lost again, the largest size that passed is
probed once more: a path that went down during the ladder (a link that flaps, a peer that went away) loses it too,
which the parse names as a contradiction instead of reporting the size the ladder reached when the path went away
(the smallest size, 576 bytes, when it went down right after it).

Pacing: one echo request at a time, ``interval_ms`` between two pings (and a reply or the timeout
between them), so the ladder sends at most 1000 / interval_ms echo requests per second. The default
DEFAULT_INTERVAL_MS 200 is 5/s, a fifth of banIP's 25/s default ``ban_icmplimit``, the share the
banIP fault allows its own probe (measure/icmp_pacing.py, PROBE_SHARE_OF_LIMIT, shared by both; measure.pace
passes its ``probe_interval_ms`` here where banIP's limit is lower). The pause is measure/pause.py's: ``usleep``,
else a fractional ``sleep``, else whole seconds rounded up (OpenWrt's BusyBox). The header's
``interval_ms`` is the pause used (1000 there).
"""

from __future__ import annotations

import ipaddress
import re
import shlex

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.pause import pause_snippet

# IP + ICMP echo header bytes in front of the payload, per address family
ICMP_HEADER_BYTES = {4: 28, 6: 48}
# 200 ms: 5 echo requests/s, a fifth of banIP's default 25/s (module doc)
DEFAULT_INTERVAL_MS = 200
DEFAULT_TIMEOUT_S = 1
DEFAULT_ATTEMPTS = 2
# The ping commands the snippet may run (a fixed set: the command is not quoted in the script)
PING_COMMANDS = ("ping", "busybox ping")
RESULTS = ("passed", "failed", "too-big-local", "too-big-remote", "icmp-error", "error")
# Payload bounds: 0 is a bare echo; 65507 / 65487 fill a 65535-byte IPv4 / IPv6 packet
MAX_PAYLOAD_BYTES = {4: 65507, 6: 65487}
# The smallest packet every path must carry whole: 576 bytes for IPv4 (RFC 791's datagram every host
# accepts), 1280 for IPv6 (RFC 8200 section 5); the ladder's low bound is that minus the echo's headers
MIN_PATH_MTU_BYTES = {4: 576, 6: 1280}

_BODY = r"""
case "$(ping_ -V 2>&1)" in *iputils*) tool_=iputils ;; *) tool_=busybox ;; esac
snmp4_() {
  # $1 the /proc/net/snmp section ("Ip:", "Icmp:"), $2 a field name: its value, empty when absent
  h_=''
  while read -r t_ r_; do
    [ "$t_" = "$1" ] || continue
    if [ -z "$h_" ]; then h_=$r_; continue; fi
    n_=$2
    # shellcheck disable=SC2086 # the values line is split on purpose
    set -- $r_
    for f_ in $h_; do
      if [ "$f_" = "$n_" ]; then echo "$1"; return 0; fi
      shift
    done
    return 0
  done </proc/net/snmp
}
snmp6_() {
  while read -r k_ v_; do
    if [ "$k_" = "$1" ]; then echo "$v_"; return 0; fi
  done </proc/net/snmp6
}
frags_() { if [ "$family_" = 6 ]; then snmp6_ Ip6FragOKs; else snmp4_ Ip: FragOKs; fi; }
icmperrs_() { if [ "$family_" = 6 ]; then snmp6_ Icmp6InPktTooBigs; else snmp4_ Icmp: InDestUnreachs; fi; }
sent_=0
ping1_() {
  # one echo request of $1 payload bytes: sets class_ and mtu_
  if [ "$sent_" -gt 0 ]; then nap_; fi
  sent_=$((sent_ + 1))
  mtu_=''
  if [ "$tool_" = iputils ]; then
    out_=$(ping_ -"$family_" -M 'do' -s "$1" -c 1 -W "$timeout_s_" "$target_" 2>&1)
    rc_=$?
    case "$out_" in
      *"essage too long"*) class_=too-big-local ;;   # older iputils write "Message"
      *"Frag needed"*|*"Packet too big"*) class_=too-big-remote ;;
      *) if [ "$rc_" = 0 ]; then class_=passed; elif [ "$rc_" = 1 ]; then class_=failed; else class_=error; fi ;;
    esac
    case "$class_" in
      too-big-*) mtu_=${out_#*mtu}; mtu_=${mtu_#"${mtu_%%[0-9]*}"}; mtu_=${mtu_%%[!0-9]*} ;;
    esac
  else
    f0_=$(frags_); e0_=$(icmperrs_)
    out_=$(ping_ -"$family_" -s "$1" -c 1 -W "$timeout_s_" "$target_" 2>&1)
    rc_=$?
    f1_=$(frags_); e1_=$(icmperrs_)
    if [ "$rc_" = 0 ]; then
      if [ "$f0_" = "$f1_" ]; then class_=passed; else class_=too-big-local; fi
    elif [ "$rc_" = 1 ]; then
      if [ "$e0_" = "$e1_" ]; then class_=failed; else class_=icmp-error; fi
    else
      class_=error
    fi
  fi
  # no reply and no statistics line: ping never sent the probe (a usage error, no route, a bad address;
  # BusyBox exits 1 for those as for a lost reply)
  case "$class_:$out_" in
    failed:*transmitted*|icmp-error:*transmitted*) ;;
    failed:*|icmp-error:*) class_=error ;;
  esac
}
probe_() {
  # up to attempts_ pings of $1 payload bytes while they are silently lost; prints the probe line
  a_=0
  while :; do
    a_=$((a_ + 1))
    ping1_ "$1"
    if [ "$class_" != failed ] || [ "$a_" -ge "$attempts_" ]; then break; fi
  done
  if [ -n "$mtu_" ]; then
    echo "probe $1 $class_ mtu=$mtu_ attempts=$a_"
  else
    echo "probe $1 $class_ attempts=$a_"
  fi
  if [ "$class_" = error ]; then echo "result error rc=$rc_"; exit 0; fi
}
echo "ladder tool=$tool_ family=$family_ target=$target_ low=$low_ high=$high_ interval_ms=$interval_ms_ attempts=$attempts_"
probe_ "$low_"
if [ "$class_" != passed ]; then echo "result none"; exit 0; fi
lo_=$low_
hi_=$high_
if [ "$hi_" -gt "$lo_" ]; then
  probe_ "$hi_"
  if [ "$class_" = passed ]; then lo_=$hi_; fi
  hiclass_=$class_
fi
while [ $((hi_ - lo_)) -gt 1 ]; do
  mid_=$(((lo_ + hi_) / 2))
  probe_ "$mid_"
  if [ "$class_" = passed ]; then lo_=$mid_; else hi_=$mid_; hiclass_=$class_; fi
done
if [ "$hi_" -gt "$lo_" ] && [ "$hiclass_" = failed ]; then
  # the smallest size lost without an answer once more: passing now, an earlier loss was chance, not size
  probe_ "$hi_"
  if [ "$class_" = passed ]; then
    lo_=$hi_
  else
    # lost again: the largest size that passed once more; lost now, the path went away during the ladder (not a size)
    probe_ "$lo_"
  fi
fi
echo "result largest=$lo_"
"""


def _whole(name, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError("%s must be a whole number %d-%d, got %r" % (name, low, high, value))
    return value


def ladder_bounds(family, link_mtu_bytes):
    """``(low, high)`` payload bytes for a ladder over a link of ``link_mtu_bytes`` (the route's egress MTU: the
    uplink's toward an endpoint, the tunnel's toward the far tunnel address).

    ``low`` = MIN_PATH_MTU_BYTES - ICMP_HEADER_BYTES (548 IPv4, 1232 IPv6: a path that cannot carry it is
    broken, not narrow, and a peer that does not answer it is unreachable); ``high`` = the link MTU minus the
    headers (1472 / 1452 on a 1500 link): above it the host refuses (iputils) or fragments (BusyBox) the
    probe, so probing higher tells nothing. (4, 1500) → (548, 1472); (6, 1420) → (1232, 1372). Raises
    ValueError naming the argument: a family other than 4/6, or a link MTU that is not a whole number from
    MIN_PATH_MTU_BYTES[family] to 65535.
    """
    if family not in (4, 6) or isinstance(family, bool):
        raise ValueError("family must be 4 or 6, got %r" % (family,))
    link = _whole("link_mtu_bytes", link_mtu_bytes, MIN_PATH_MTU_BYTES[family], 65535)
    return MIN_PATH_MTU_BYTES[family] - ICMP_HEADER_BYTES[family], link - ICMP_HEADER_BYTES[family]


def ladder_script(target, family, low, high, interval_ms=DEFAULT_INTERVAL_MS, timeout_s=DEFAULT_TIMEOUT_S,
                  attempts=DEFAULT_ATTEMPTS, ping_command="ping"):
    """The POSIX sh snippet (BusyBox ash, dash) that bisects the largest DF payload to ``target``.

    ``target``: an IP address (no host name: the family must be the address's; no ``%zone``: an endpoint
    or a far tunnel address is never link-local); ``family``: 4 or 6,
    the target's; ``low``/``high``: payload bytes, ``0 <= low <= high <= MAX_PAYLOAD_BYTES[family]``
    (with BusyBox ping keep ``high`` at or under the egress MTU minus ICMP_HEADER_BYTES: above it the
    kernel fragments and the probe counts as too-big-local, correctly but uselessly); ``interval_ms``
    0-10000 between two pings; ``timeout_s`` 1-60 per ping; ``attempts`` 1-5 pings per size while
    they are silently lost; ``ping_command`` one of PING_COMMANDS (``busybox ping`` where ``ping``
    is not BusyBox's, as in tests). The snippet picks iputils or BusyBox itself (``ping -V``).
    Output: the module doc. Raises ValueError naming the bad argument.
    """
    if family not in (4, 6) or isinstance(family, bool):
        raise ValueError("family must be 4 or 6, got %r" % (family,))
    try:
        version = ipaddress.ip_address(target).version if isinstance(target, str) and "%" not in target else None
    except ValueError:
        version = None
    if version != family:
        raise ValueError("target must be an IPv%d address, got %r" % (family, target))
    low = _whole("low", low, 0, MAX_PAYLOAD_BYTES[family])
    high = _whole("high", high, low, MAX_PAYLOAD_BYTES[family])
    interval_ms = _whole("interval_ms", interval_ms, 0, 10000)
    timeout_s = _whole("timeout_s", timeout_s, 1, 60)
    attempts = _whole("attempts", attempts, 1, 5)
    if ping_command not in PING_COMMANDS:
        raise ValueError("ping_command must be one of %s, got %r" % (", ".join(PING_COMMANDS), ping_command))
    prologue = [
        "target_=%s" % shlex.quote(target),
        "family_=%d" % family,
        "low_=%d" % low,
        "high_=%d" % high,
        "timeout_s_=%d" % timeout_s,
        "attempts_=%d" % attempts,
        # C messages whatever the caller's language (ssh forwards LANG/LC_*): the snippet reads iputils' English texts
        "ping_() { LC_ALL=C %s \"$@\"; }" % ping_command,
    ]
    return "\n".join(prologue) + "\n" + pause_snippet(interval_ms) + _BODY.lstrip("\n")


_HEADER = re.compile(r"^ladder tool=(iputils|busybox) family=([46]) target=(\S+) low=(\d+) high=(\d+) "
                     r"interval_ms=(\d+) attempts=(\d+)$")
_PROBE = re.compile(r"^probe (\d+) (%s)(?: mtu=(\d+))? attempts=(\d+)$" % "|".join(re.escape(r) for r in RESULTS))
_RESULT = re.compile(r"^result (?:largest=(\d+)|(none)|error rc=(\d+))$")


def parse_ladder(text):
    """Read the ladder snippet's output (module doc) into the PMTU fault's measurement.

    ``"ladder tool=iputils family=4 target=10.198.2.2 low=1200 high=1472 interval_ms=200 attempts=2\\n"
    "probe 1200 passed attempts=1\\nprobe 1472 failed attempts=2\\n...result largest=1372\\n"`` →
    ``{"tool": "iputils", "family": 4, "target": "10.198.2.2", "low_payload_bytes": 1200,
    "high_payload_bytes": 1472, "interval_ms": 200, "largest_passing_payload_bytes": 1372,
    "path_mtu_bytes": 1400, "at_high_bound": False, "reported_mtu_bytes": None, "pings_sent": 11,
    "probes": [{"payload_bytes": 1200, "packet_bytes": 1228, "result": "passed", "mtu_bytes": None,
    "attempts": 1}, ...], "invalid": None}``.

    ``path_mtu_bytes`` = largest passing payload + ICMP_HEADER_BYTES[family] (28 / 48);
    ``at_high_bound``: even ``high`` passed, so the path carries at least that (the ladder looked no
    higher). ``reported_mtu_bytes``: the smallest MTU a too-big probe named (iputils), else None.
    ``invalid`` is None, or why the output is no PMTU measurement (then the sizes are None):
    nothing passed, not even ``low`` (the peer is unreachable or drops echo: not a PMTU finding);
    ping failed to run (``result error``); a size passed outside ``low``-``high`` (a path MTU above the link's or
    under the least every path carries: it cannot be true); or a size passed at or above one that was silently lost
    (``failed`` is loss, not size, there; the snippet's rechecks show it), or one a hop refused (``too-big-remote``,
    ``icmp-error``: the path changed during the ladder). Raises ParseError for output the snippet does not
    print: no ``ladder`` line, an unknown line, no result line, a result that is not the largest
    passing probe.
    """
    text = text or ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    header = _HEADER.match(lines[0]) if lines else None
    if not header:
        raise ParseError("no 'ladder tool=... family=...' line at the start of the PMTU ladder output: %r" % text[:200])
    tool, family, target = header.group(1), int(header.group(2)), header.group(3)
    low, high, interval_ms = int(header.group(4)), int(header.group(5)), int(header.group(6))
    probes, result = [], None
    for number, line in enumerate(lines[1:], 2):
        probe = _PROBE.match(line)
        if probe and result is None:
            probes.append({"payload_bytes": int(probe.group(1)), "packet_bytes": int(probe.group(1)) + ICMP_HEADER_BYTES[family],
                           "result": probe.group(2), "mtu_bytes": int(probe.group(3)) if probe.group(3) else None,
                           "attempts": int(probe.group(4))})
            continue
        result_line = _RESULT.match(line)
        if result_line and result is None:
            result = result_line
            continue
        raise ParseError("PMTU ladder output line %d is not a probe or the one result line: %r" % (number, line))
    if result is None:
        raise ParseError("the PMTU ladder output has no result line (the snippet was cut short)")
    passing = [p["payload_bytes"] for p in probes if p["result"] == "passed"]
    reported = [p["mtu_bytes"] for p in probes if p["mtu_bytes"] is not None]
    measurement = {
        "tool": tool, "family": family, "target": target, "low_payload_bytes": low, "high_payload_bytes": high,
        "interval_ms": interval_ms, "largest_passing_payload_bytes": None, "path_mtu_bytes": None, "at_high_bound": False,
        "reported_mtu_bytes": min(reported) if reported else None, "pings_sent": sum(p["attempts"] for p in probes),
        "probes": probes, "invalid": None,
    }
    if result.group(1) is not None and (not passing or int(result.group(1)) != max(passing)):
        raise ParseError("the PMTU ladder's result largest=%s is not its largest passing probe (%s)"
                         % (result.group(1), max(passing) if passing else "none passed"))
    if result.group(3) is not None:
        size = probes[-1]["payload_bytes"] if probes else low
        measurement["invalid"] = ("ping could not probe %s (exit status %s at %d payload bytes: no route, a bad address or "
                                  "no ping); not a PMTU measurement" % (target, result.group(3), size))
        return measurement
    if not passing:
        measurement["invalid"] = ("no probe to %s was answered, not even the smallest (%d payload bytes, a %d-byte packet): "
                                  "the peer is unreachable or drops ICMP echo, which is not a PMTU finding"
                                  % (target, low, low + ICMP_HEADER_BYTES[family]))
        return measurement
    outside = [size for size in passing if not low <= size <= high]
    if outside:
        measurement["invalid"] = ("%d payload bytes passed, outside the ladder's bounds %d-%d (%d is the link's MTU minus the "
                                  "headers): a result that cannot be true, not a PMTU measurement" % (outside[0], low, high, high))
        return measurement
    lost = [p["payload_bytes"] for p in probes if p["result"] == "failed"]
    if lost and min(lost) <= max(passing):
        measurement["invalid"] = ("the probes to %s contradict each other: %d payload bytes passed but %d were lost "
                                  "without an answer, so the losses are not about size (loss on the path: measure again)"
                                  % (target, max(passing), min(lost)))
        return measurement
    # a hop's answer (or an ICMP error with the probe lost) below a size that passed: the path changed during the ladder;
    # too-big-local is not one (a path MTU the kernel learned meanwhile, or BusyBox's counters moved by other traffic)
    refused = [p for p in probes if p["result"] in ("too-big-remote", "icmp-error") and p["payload_bytes"] <= max(passing)]
    if refused:
        measurement["invalid"] = ("the probes to %s contradict each other: %d payload bytes passed but %d did not (%s), so the "
                                  "path changed during the ladder (measure again)"
                                  % (target, max(passing), refused[0]["payload_bytes"], refused[0]["result"]))
        return measurement
    largest = max(passing)
    measurement.update(largest_passing_payload_bytes=largest, path_mtu_bytes=largest + ICMP_HEADER_BYTES[family],
                       at_high_bound=largest == high)
    return measurement
