# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Resolve a ``gather_subset`` list the way Ansible's setup module spells it."""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError


def resolve_gather_subset(requested, known):
    """Return the set of subset names to gather.

    ``requested`` is a list such as ``['all', '!routes']`` or ``['tcp']``; ``known`` is the tuple
    of valid names. ``all`` adds every known subset, ``!name`` removes one (``!all`` removes all).
    A list made only of exclusions starts from ``all``, as in ``setup``'s gather_subset.

    >>> sorted(resolve_gather_subset(['all', '!routes'], ('wireguard', 'routes', 'tcp')))
    ['tcp', 'wireguard']

    Raises ParseError naming the option and the value for an unknown name.
    """
    selected = set()
    items = [str(item).strip() for item in requested or []]
    if items and all(item.startswith("!") for item in items):
        selected.update(known)
    for item in items:
        exclude = item.startswith("!")
        name = item[1:] if exclude else item
        if name == "all":
            names = set(known)
        elif name in known:
            names = {name}
        else:
            raise ParseError(
                "gather_subset: unknown subset %r; choose from all, %s (prefix ! to exclude)"
                % (item, ", ".join(known))
            )
        if exclude:
            selected -= names
        else:
            selected |= names
    return selected
