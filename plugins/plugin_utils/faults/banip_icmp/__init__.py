# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2, ``banip_icmp_limit_drops_health_checks``: banIP's ICMP flood limit drops mwan3's health-check replies.

banIP limits ICMP on the WAN devices to ``ban_icmplimit`` packets/s (burst 5; one bucket per family in 1.0.x, one shared
from 1.5.3), counted in ``cnt_icmpflood``; mwan3track's pings and any monitoring pinger share it, so a healthy uplink can
be marked offline. mwan3track's defaults (reliability 1, count 1, interval 10 s) are its own (``config_get`` defaults in
net/mwan3/files/usr/sbin/mwan3track).

Follow it here, top to bottom, then in roles/banip_icmp/tasks/icmplimit.yml (the role that applies the fix) and
roles/health_check_measure/tasks/main.yml (the measurement the rule reads):

- ``fault.py``: ``BANIP_ICMP_LIMIT``, the registry's entry (faults/registry.py): texts, readings, rule, plan.
- ``reads.py``: what it reads on the router, the ``banip`` and ``mwan3`` readings (faults/readings.py lists them first
  in its ``ORDER``), with their parsers: ``mwan3.py`` (``mwan3 interfaces``, banIP's version and default limit, the uci
  settings of mwan3 and banIP) and ``nft.py`` (banIP's nft table: its counters, its ICMP flood rule(s)).
- ``health_check_window.py``: the passive window (action health_check_window, run by health_check_measure): banIP's
  counters before and after, and mwan3track's failures in the system log (``logread.py``), nothing sent.
- ``limiter.py``: whether banIP's limiter is in force (or why the role leaves banIP alone) and its rule, and mwan3's
  ping load on it. The probe's pace inside it is shared with the PMTU ladders: measure/icmp_pacing.py.
- ``rule.py``: the finding (evidence and explanation, ``evidence.py``) and whether the host could be judged.
- ``plan.py``: the one plan: ``ban_icmplimit`` in uci and the live ICMP flood rule.
- ``flood_rule.py``: the live rule as the fixing role reads it (``nft -t -a list chain inet banIP pre-routing``) and
  the ``nft -f`` script that rewrites it in place (the role's filters banip_icmp_live, banip_icmp_replace_script).

Shared code stays outside: the redacted uci read (remote/uci_reader.py), the uci parser (parse/uci.py) and the uci
action the role sets ``ban_icmplimit`` with (plugins/action/uci.py, fix/uci_plan.py, shared with wireguard_keepalive),
the ping burst the probe sends (measure/ping_burst.py, a measurement tool, not banIP's), the role's report
(report/banip.py).

The Fault value is imported from ``fault.py``, not re-exported here: faults/readings.py imports ``reads.py``
(through this package), and nothing here imports faults/readings.py.
"""
