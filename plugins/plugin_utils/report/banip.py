# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The banip_icmp role's one message per router: banIP's ICMP flood limit, rule and counter before and after.

``banip_icmp_report(before, after, wanted_per_second, check_mode, init_script, version_defaults, would_change=None)``:
``before``/``after`` are openwrt_facts' ``banip`` subset (``version``, ``icmplimit_per_second``,
``icmplimit_default_per_second``, ``icmp_limit_rule`` {rate_per_second}, ``icmp_counter`` {name,
packets}; any may be None); ``wanted_per_second`` the role's banip_icmp_limit_per_second (packets/s);
``init_script`` banIP's init script (for the hint); ``version_defaults`` the text naming banIP's
default by version, used when the facts could not tell it; ``would_change`` (check mode) whether the
uci task reported it would change the limit. Returns the lines, for example::

    ["banIP 1.5.6, default 25/s; wanted 250/s", "before -> after",
     "ban_icmplimit (packets/s): 10 -> 250", "nft limit rule (packets/s): 10 -> 250",
     "ICMP flood counter cnt_icmpflood (packets dropped): 412 -> 0"]

plus a last line when the loaded nft rule does not show the wanted limit after a real run (banIP
rebuilds its rule on reload: say where to look). In check mode the second line says what a real run
would do, and the ban_icmplimit line shows the value it would set (``10 -> 250 (would set)``): the same
change the task's diff shows, never the unchanged reading twice. Raises ValueError when ``before``/``after`` are
not dicts or ``wanted_per_second`` is not a number.
"""

from __future__ import annotations


def _values(pair, key, missing):
    """``"a -> b"`` of ``entry[key]`` for the two entries, ``missing`` where an entry has none."""
    return " -> ".join(missing if (entry or {}).get(key) is None else str(entry[key]) for entry in pair)


def banip_icmp_report(before, after, wanted_per_second, check_mode, init_script, version_defaults, would_change=None) -> list:
    """The report lines (see the module docstring)."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        raise ValueError("before and after must be openwrt_facts' banip facts (dicts), got %s and %s"
                         % (type(before).__name__, type(after).__name__))
    try:
        wanted = int(wanted_per_second)
    except (TypeError, ValueError):
        raise ValueError("wanted_per_second must be a number of packets/s, got %r" % (wanted_per_second,)) from None
    default = before.get("icmplimit_default_per_second")
    default = version_defaults if default is None else "%s/s" % default
    rules = (before.get("icmp_limit_rule"), after.get("icmp_limit_rule"))
    counters = (before.get("icmp_counter"), after.get("icmp_counter"))
    counter_name = next((c.get("name") for c in counters if c and c.get("name")), None)
    if check_mode:
        would = would_change if would_change is not None else before.get("icmplimit_per_second") != wanted
        step = ("check mode: a real run would set ban_icmplimit to %d and reload banIP (%s); rule and counter as read now"
                % (wanted, init_script) if would else "check mode: ban_icmplimit is already %d: nothing to change" % wanted)
        limit = "%s -> %d (would set)" % (_values((before,), "icmplimit_per_second", "unset"), wanted) if would \
            else _values((before,), "icmplimit_per_second", "unset")
    else:
        step, limit = "before -> after", _values((before, after), "icmplimit_per_second", "unset")
    lines = [
        "banIP %s, default %s; wanted %d/s" % (before.get("version") or "(version unknown)", default, wanted),
        step,
        "ban_icmplimit (packets/s): %s" % limit,
        "nft limit rule (packets/s): %s" % _values(rules, "rate_per_second", "none"),
        "ICMP flood counter %s (packets dropped): %s" % (counter_name or "(no banIP nft table)", _values(counters, "packets", "n/a")),
    ]
    rule_after = after.get("icmp_limit_rule")
    if not check_mode and rule_after and rule_after.get("rate_per_second") != wanted:
        lines.append("banip_icmp: ban_icmplimit is %d in uci, but banIP's nft rule still limits ICMP to %s/s; banIP rebuilds "
                     "the rule on reload, so check '%s status' and 'logread -e banIP'"
                     % (wanted, rule_after.get("rate_per_second"), init_script))
    return lines
