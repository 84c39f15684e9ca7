# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The banip_icmp role's one message per router: banIP's ICMP flood limit, rule and counter before and after.

``banip_icmp_report(before, after, wanted_per_second, check_mode, init_script, version_defaults, would_change=None, apply="replace_rule")``:
``before``/``after`` are openwrt_facts' ``banip`` subset (``version``, ``icmplimit_per_second``,
``icmplimit_default_per_second``, ``icmp_limit_rule`` {rate_per_second}, ``icmp_counter`` {name,
packets}; any may be None); ``wanted_per_second`` the role's banip_icmp_limit_per_second (packets/s);
``init_script`` banIP's init script (for the hint); ``version_defaults`` the text naming banIP's
default by version, used when the facts could not tell it; ``would_change`` (check mode) whether the
role would change the limit in uci or in the live rule; ``apply`` the role's banip_icmp_apply
(``replace_rule`` or ``restart``). Returns the lines, for example::

    ["banIP 1.5.6, default 25/s; wanted 250/s", "before -> after",
     "ban_icmplimit (packets/s): 10 -> 250", "nft limit rule (packets/s): 10 -> 250",
     "ICMP flood counter cnt_icmpflood (packets dropped): 412 -> 0"]

plus a last line when the loaded nft rule does not show the wanted limit after a real run (the role
waits for it, so this is a rule that changed again since: say where to look). In check mode the second line says what a real run
would do, and the ban_icmplimit line shows the value it would set (``10 -> 250 (would set)``): the same
change the task's diff shows, never the unchanged reading twice. Raises ValueError when ``before``/``after`` are
not dicts or ``wanted_per_second`` is not a number.
"""

from __future__ import annotations


def _values(pair, key, missing):
    """``"a -> b"`` of ``entry[key]`` for the two entries, ``missing`` where an entry has none."""
    return " -> ".join(missing if (entry or {}).get(key) is None else str(entry[key]) for entry in pair)


APPLY_TEXT = {
    "replace_rule": "rewrite banIP's live ICMP flood rule in place (its sets stay loaded)",
    "restart": "restart banIP (%s restart: its blocklist sets are empty until its feeds load again)",
}


def banip_icmp_report(before, after, wanted_per_second, check_mode, init_script, version_defaults, would_change=None,
                      apply="replace_rule") -> list:
    """The report lines (see the module docstring)."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        raise ValueError("before and after must be openwrt_facts' banip facts (dicts), got %s and %s"
                         % (type(before).__name__, type(after).__name__))
    try:
        wanted = int(wanted_per_second)
    except (TypeError, ValueError):
        raise ValueError("wanted_per_second must be a number of packets/s, got %r" % (wanted_per_second,)) from None
    if apply not in APPLY_TEXT:
        raise ValueError("apply must be one of %s, got %r" % (", ".join(APPLY_TEXT), apply))
    default = before.get("icmplimit_default_per_second")
    default = version_defaults if default is None else "%s/s" % default
    rules = (before.get("icmp_limit_rule"), after.get("icmp_limit_rule"))
    counters = (before.get("icmp_counter"), after.get("icmp_counter"))
    counter_name = next((c.get("name") for c in counters if c and c.get("name")), None)
    if check_mode:
        live = (before.get("icmp_limit_rule") or {}).get("rate_per_second")
        would = would_change if would_change is not None else (
            before.get("icmplimit_per_second") != wanted or live not in (None, wanted))
        how = APPLY_TEXT[apply] % init_script if apply == "restart" else APPLY_TEXT[apply]
        step = ("check mode: a real run would set ban_icmplimit to %d and %s; rule and counter as read now"
                % (wanted, how) if would else "check mode: ban_icmplimit and the live rule are already %d: nothing to change" % wanted)
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
        lines.append("banip_icmp: ban_icmplimit is %d in uci, but banIP's live nft rule limits ICMP to %s/s (it changed again "
                     "after the role applied it: check '%s status' and 'logread -e banIP'); the next run applies it again"
                     % (wanted, rule_after.get("rate_per_second"), init_script))
    return lines
