# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The directory ansible-playbook runs in, where the playbooks' reports/ goes by default."""

from __future__ import annotations

DOCUMENTATION = r"""
name: run_directory
version_added: 0.3.0
author:
  - tunnelfix.fleet developers (!UNKNOWN)
short_description: The directory the playbook was started in
description:
  - Returns the controller's working directory, the default parent of C(reports/) for diagnose, remediate,
    verify and the measuring roles.
  - C($PWD) when it names that same directory (it keeps the path as the operator typed it, through a symlink),
    else the process's own working directory. A systemd service or a program that starts C(ansible-playbook)
    without a shell has no C($PWD); a bare C(lookup('ansible.builtin.env', 'PWD')) then gives an empty string
    and the reports would go to C(/reports).
  - Takes no terms.
options: {}
"""

EXAMPLES = r"""
- name: Where this run's reports go unless tunnel_measure_report_dir says otherwise
  ansible.builtin.debug:
    msg: "{{ lookup('tunnelfix.fleet.run_directory') }}/reports"
"""

RETURN = r"""
_raw:
  description: One absolute directory path.
  type: list
  elements: str
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase


def run_directory(environ=None, getcwd=os.getcwd):
    """``$PWD`` when it is the same directory as ``getcwd()``, else ``getcwd()``. Raises OSError when the working
    directory is gone."""
    cwd = getcwd()
    pwd = (os.environ if environ is None else environ).get("PWD") or ""
    try:
        if pwd and os.path.isabs(pwd) and os.path.samefile(pwd, cwd):
            return pwd
    except OSError:
        pass
    return cwd


class LookupModule(LookupBase):
    """``lookup('tunnelfix.fleet.run_directory')``: see DOCUMENTATION."""

    def run(self, terms, variables=None, **kwargs):
        if terms:
            raise AnsibleLookupError("tunnelfix.fleet.run_directory takes no terms, got %r" % (terms,))
        try:
            return [run_directory()]
        except OSError as exc:
            raise AnsibleLookupError("the working directory of this run cannot be read: %s" % exc) from None
