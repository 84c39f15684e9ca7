# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``kernel_without_bbr``: the kernel has no BBR, built in or as tcp_bbr, so fault 3's fix cannot apply here.

A kernel limit no role fixes (like ``cc_in_container`` and ``sch_fq_missing`` next to it): it says why fault 3's fix
cannot apply. Follow it here:

- ``fault.py``: ``KERNEL_WITHOUT_BBR``, the registry's entry: texts, reading (``tcp``, faults/loss_sensitive_cc/reads.py).
- ``rule.py``: the finding (``evidence.py``) and whether the host could be judged.
"""
