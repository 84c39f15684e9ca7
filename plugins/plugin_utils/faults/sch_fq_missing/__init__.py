# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``sch_fq_missing``: no fq qdisc, so BBR runs with TCP's internal pacing (more CPU) instead of fq.

A kernel limit no role fixes, judged only where the host owns its kernel (in a container the qdisc is the host's).
Follow it here:

- ``fault.py``: ``SCH_FQ_MISSING``, the registry's entry: texts, readings (``tcp`` and ``netns``,
  faults/loss_sensitive_cc/reads.py).
- ``rule.py``: the finding (``evidence.py``) and whether the host could be judged.
"""
