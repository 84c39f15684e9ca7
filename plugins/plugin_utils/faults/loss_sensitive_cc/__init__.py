# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 3, ``loss_sensitive_congestion_control``: a loss-based congestion control (cubic) on a long, slightly lossy path.

Follow it here, top to bottom, then in roles/linux_bbr_fq/tasks/tune.yml (the role that applies the fix):

- ``fault.py``: ``LOSS_SENSITIVE_CONGESTION_CONTROL``, the registry's entry (faults/registry.py): texts, readings, rule,
  plan; and the fix's text, ``buffer_below_bdp``'s too.
- ``reads.py``: what the TCP-stack faults read on Linux (the ``tcp`` and ``netns`` readings: every sysctl of the stack,
  the kernel modules, the sysctl files the boot applies, the network namespace) and the accessors of those facts. The
  family's one reading module: ``buffer_below_bdp``, ``kernel_without_bbr``, ``cc_in_container``, ``sch_fq_missing``
  and ``tcp_fix_undone_at_boot`` (the folders next to this one) import it. The reader is remote/tcp_reader.py, which
  linux_bbr_fq's tcp_tuning action reads through too.
- ``rule.py``: the finding (the Mathis bound against a peer's single flow, or a hub's download flows from its peers'
  sweeps; ``evidence.py``), whether the host could be judged, and verify's floor.
- ``plan.py``: linux_bbr_fq's one plan: which sysctls the host can take, what the next boot undoes, which files a run
  changes. ``Fault.plan`` (remediate's view, of this fault and ``buffer_below_bdp``) and the tcp_tuning_plan filter
  (plugins/filter/tcp_tuning.py, what the role applies) both call ``linux_bbr_fq_plan`` on the same facts.

Shared code stays shared: the Mathis bound and the bandwidth-delay product (parse/tcp_model.py, also the rates
filters'), which sysctl file wins at boot (parse/sysctl_boot.py, also remote/tcp_reader.py's), the TCP facts and the
reasons' sentences (module_utils/_tcp_tuning.py, also the tcp_tuning action's and tunnel_facts module's).

The Fault value is imported from ``fault.py``, not re-exported here: faults/readings.py imports ``reads.py``
(through this package) for ORDER.
"""
