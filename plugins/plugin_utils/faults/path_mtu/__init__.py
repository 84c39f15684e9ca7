# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU black hole, ``path_mtu_black_hole``: a tunnel whose MTU the path does not carry, with no ICMP to say so.

Two files say "plan"; there is one plan. The fault's plan is ``fix.py``'s ``fix_plan``: the one the role applies
(roles/wireguard_mtu/tasks/mtu.yml, through the ``wireguard_mtu_plan`` filter, on the role's own read). ``plan.py``
(``pmtu_plan``, the ``Fault.plan`` remediate shows) adapts ``fix_plan`` to remediate's facts, turning the facts and
the measurement's record into ``fix_plan``'s input shape and calling it; its own decisions are only which tunnels the
role is given (``pmtu_fix_vars``: a finding naming a smaller MTU) and, for what the facts do not read (a file's MTU
setting, the clamp file, ``tcp_mtu_probing``), the assumption ``facts_reading`` documents.

Follow it here, top to bottom, then the fixing role's task file roles/wireguard_mtu/tasks/mtu.yml:

- ``fault.py``: ``PATH_MTU_BLACK_HOLE``, the registry's entry (faults/registry.py): texts, readings, rule, plan.
- ``reads.py``: what it reads (the ``link_mtu`` reading: every device's MTU; ``link_ipv6``: every device's live IPv6
  addresses, whether IPv6 runs inside, ``carries_ipv6``, the one test the role's read takes too; the ``wireguard`` and
  route readings it shares), each tunnel's ladder targets (the endpoint outside, the far tunnel address inside) and the record's entry.
- ``ladder.py``: the don't-fragment ping ladder (a POSIX sh snippet) and the parse of its output.
- ``tunnel_mtu.py``: the MTU that fits a measured outer path (60 / 80 bytes of overhead, the 1280 floor).
- ``rule.py``: the finding (evidence and explanation, ``evidence.py``) and whether the host could be judged.
- ``fix.py``: THE plan, ``fix_plan``: from the tunnels and MTUs the role is given and one input shape (``parse_reading``'s:
  per tunnel its live MTU, whether IPv6 runs inside, its uci proto and mtu or the files that configure it), what changes
  per platform (uci ``mtu`` and an MSS clamp; wg-quick ``MTU =``; networkd ``MTUBytes=``), the lines of it, the live
  commands guarded_apply runs and reverts with, and every refusal naming the option; whether ``net.ipv4.tcp_mtu_probing``
  changes, live and in its sysctl.d file (``tcp_mtu_probing_plan``, Linux, the role's option); also the role's one
  python-free read (``read_command``) and the clamp's file and rules.
- ``plan.py``: the fault's plan (the lines remediate shows): ``fix_plan`` called on the facts turned into that shape
  (``facts_reading``) with the tunnels the findings give the role, so the fault and the role cannot disagree.
- ``measure.py``: the measuring step's one remote script (every ladder of a host) and the record it makes; run by the action
  ``path_mtu_ladder`` from the role ``path_mtu_measure`` (diagnose: phase before, verify: after).
  The two roles' option checks (``measure.role_option_errors``, ``fix.role_option_errors``) are declared in
  ``Fault.option_checks``, the record in ``Fault.records`` (``measure.RECORD``), the measuring role in
  ``Fault.measure_role`` (``measure.ROLE``: diagnose and verify run every fault's measuring role, no play names it).

Where the ladder runs: in a measuring step of its own (a role and an action that diagnose and verify run, like
roles/health_check_measure), whose record the host's view holds as ``view["path_mtu"]`` (``measure.RECORD``:
``path_mtu_measure_record``, declared in ``Fault.records``), not in the facts batch. A ladder is a bisection of paced pings: up to about 25 s on a
black hole where OpenWrt's BusyBox pauses a whole second between pings, two ladders per peer (outside and inside the
tunnel); in the one facts execution that would make every host, converged or not, pay that on every run, and the
quick facts-only pass (tunnelfix_measure=false) would send traffic. As a measuring step it runs only where
measurements run, after the facts (its targets and bounds come from them: ``reads.ladder_targets``), and verify runs
it again on the fixed MTU ("verify re-runs the ladder and reports fixed": ``Fault.rechecked`` needs the record). The
facts part of the fault stays cheap: ``link_mtu`` parses the ``ip -d -j link show`` listing the ``bridges`` reading
already runs, and ``link_ipv6`` adds one listing (``ip -j addr show``) to the same script, so a converged host still
costs one facts execution.
"""
