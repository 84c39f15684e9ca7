# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``congestion_control_restricted_in_container``: a container whose host does not allow the kernel's BBR in its namespace.

A container limit no role here fixes (the container's host must allow bbr): it says why fault 3's fix cannot apply.
Follow it here:

- ``fault.py``: ``CONGESTION_CONTROL_RESTRICTED_IN_CONTAINER``, the registry's entry: texts, readings (``tcp`` and
  ``netns``, faults/loss_sensitive_cc/reads.py).
- ``rule.py``: the finding (``evidence.py``) and whether the host could be judged (only a child network namespace).
"""
