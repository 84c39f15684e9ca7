# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``buffer_below_bdp``: one flow capped by the socket buffers, a tcp_wmem/tcp_rmem maximum below the path's
bandwidth-delay product.

Follow it here, then in faults/loss_sensitive_cc/ (fault 3: the fix it shares) and roles/linux_bbr_fq/tasks/tune.yml:

- ``fault.py``: ``BUFFER_BELOW_BDP``, the registry's entry: texts, readings (fault 3's ``tcp`` and ``netns``,
  faults/loss_sensitive_cc/reads.py), rule; its fix text and plan are fault 3's (faults/loss_sensitive_cc/plan.py).
- ``rule.py``: the finding (``evidence.py``) and whether the host could be judged.
"""
