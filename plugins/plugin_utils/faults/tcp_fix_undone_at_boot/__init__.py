# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``tcp_fix_undone_at_boot``: fault 3's fix undone at the next boot by a sysctl file applied after linux_bbr_fq's drop-in.

Follow it here, then in parse/sysctl_boot.py (which file the boot applies last; shared with remote/tcp_reader.py):

- ``fault.py``: ``TCP_FIX_UNDONE_AT_BOOT``, the registry's entry: texts, reading (``tcp``: ``sysctl_boot`` and
  ``sysctl_dropins``, faults/loss_sensitive_cc/reads.py).
- ``rule.py``: the finding (``evidence.py``) and whether the host could be judged. No role fixes it: the later file is
  someone's configuration; linux_bbr_fq names the same conflicts when it runs (``overridden_at_boot`` of its one plan,
  faults/loss_sensitive_cc/plan.py), from the same function (``undone_at_boot``).
"""
