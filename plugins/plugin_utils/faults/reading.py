# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fault's facts part: what the facts actions read for it on each platform, and how that becomes facts.

A ``Reading`` is one part of a host's facts, named as users ask for it in ``gather_subset``
(``wireguard``, ``routes``, ``udp_gro``...: a public interface of tunnel_facts and openwrt_facts, so
the names stay). Per platform (``PLATFORMS``) it holds a ``Read``: the batch steps its gather reads
(``remote/batch.py``'s ``Step``/``ForEachLine``, run in the host's one remote execution), its share of
the per-device loops several readings share (``LoopLines``: one ``ethtool -k`` per device), the
readings it needs, and ``gather(action, facts, args)``, which turns the batch's results into its facts.

A ``Fault`` declares the readings its rule reads (``Fault.facts``); the facts actions gather the
readings the registry's faults declare, with what those need (``platform_readings``), so a fault that
needs a new reading defines it in its own file and declares it, and no action changes.

``gather(action, facts, args)``: ``action`` is the facts action (an ``OpenWrtActionBase``: ``step``,
``batch_step``, ``parse_output``, ``command_exists``, and the reader mixins the action has), whose
``batch`` holds the steps' results (a step the batch lacks runs on its own); ``facts`` is
``{reading name: facts}`` of the readings gathered before it (every one it needs or uses);
``args`` the action's validated options. It returns the reading's facts (any JSON value); a
ParseError or AnsibleActionFail fails the action naming the command, as ``OpenWrtActionBase`` does.

Pure data and selection here; ``remote/gather.py`` builds the batch and runs the gathers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, NamedTuple, Optional

# The platforms a reading may apply to, and the view key (faults/view.py) under which each one's facts sit.
PLATFORMS = ("linux", "openwrt")
VIEW_KEYS = {"tunnelfix": "linux", "openwrt": "openwrt"}


class LoopLines(NamedTuple):
    """A reading's share of a loop the batch runs once per line for every reading that shares it.

    ``lines``: a sh snippet printing one word per line (a device name), reading the stdout files of
    the steps named in ``inputs`` as ``"$1"``, ``"$2"``...; a snippet reading ``"$@"`` (all its inputs)
    is put last in its loop (at most one per loop). ``commands``: the argv prefixes run for every
    line; readings with the same ``commands`` share ONE loop, so a device two of them print is read once
    (the bridges' and the default routes' ``ethtool -k``).
    """

    lines: str
    inputs: tuple
    commands: tuple


def _nothing(action, facts, args):
    """The default ``Read.gather``: no facts (a reading that only needs others read)."""
    return None


@dataclass(frozen=True)
class Read:
    """How one platform takes a reading (module doc).

    ``steps``: the batch steps ``gather`` reads (a step another reading also lists runs once).
    ``needs``: the readings whose facts ``gather`` takes and that come back with it (asking for
    ``routes`` on Linux gives ``wireguard`` too, as the module docs say). ``uses``: readings whose facts
    ``gather`` takes without showing them unless asked for (openwrt_facts' ``endpoint_routes`` reads the
    peers, but gives only the routes). ``loops``: its ``LoopLines``.
    """

    steps: tuple = ()
    gather: Callable = _nothing
    needs: tuple = ()
    uses: tuple = ()
    loops: tuple = ()


@dataclass(frozen=True)
class Reading:
    """One part of the facts (module doc): ``name`` (the gather_subset name and the facts key), ``reads``
    (``{platform: Read}``; a platform it does not apply to is absent) and ``public`` (False: an input
    other readings use, never a gather_subset name nor a facts key, e.g. OpenWrt's parsed uci network)."""

    name: str
    reads: dict = field(default_factory=dict)
    public: bool = True

    def on(self, platform) -> Optional[Read]:
        """The ``Read`` of ``platform``, or None where the reading does not apply."""
        return self.reads.get(platform)

    # frozen dataclasses with a dict field are not hashable by default: a reading is one value, by name
    def __hash__(self):
        return hash(self.name)


def _closure(readings, platform, follow_uses):
    """``readings`` and, before each, what it needs (and uses, with ``follow_uses``) on ``platform``: deps first."""
    out = []

    def visit(reading, path):
        if reading in out:
            return
        if reading.name in path:
            raise ValueError("readings: %s needs itself (%s)" % (reading.name, " -> ".join(path + (reading.name,))))
        read = reading.on(platform)
        if read is None:
            raise ValueError("readings: %s is needed on %s but does not apply there" % (reading.name, platform))
        for dep in read.needs + (read.uses if follow_uses else ()):
            visit(dep, path + (reading.name,))
        out.append(reading)

    for reading in readings:
        visit(reading, ())
    return out


def platform_readings(faults, platform, order=()) -> list:
    """Every reading the ``faults`` declare (``Fault.facts``) that applies to ``platform``, with what they need and
    use, in gather order: the ones of ``order`` in its order (the names gather_subset offers and the facts' keys
    as they have always come), then the others in the order the faults declare them; each after what it needs.

    Raises ValueError for a reading that needs itself or one that does not apply to ``platform``, or two
    different readings of one name.
    """
    declared = [reading for fault in faults for reading in fault.facts if reading.on(platform) is not None]
    found = _closure(list(dict.fromkeys(declared)), platform, follow_uses=True)

    def rank(reading):
        return (order.index(reading), 0) if reading in order else (len(order), found.index(reading))

    readings = _closure(sorted(found, key=rank), platform, follow_uses=True)
    names = {}
    for reading in readings:
        if names.setdefault(reading.name, reading) is not reading:
            raise ValueError("readings: two different readings are named %r" % reading.name)
    return readings


def public_names(readings) -> tuple:
    """The gather_subset names of ``readings`` (their order), the internal ones left out."""
    return tuple(reading.name for reading in readings if reading.public)


def choose(readings, platform, requested) -> tuple:
    """``(to gather, shown)`` for the gather_subset names ``requested`` (a set, resolved): the readings to gather, in
    the order of ``readings``, and the names whose facts the action returns (the requested ones and what they
    need; what they only use is gathered, not shown)."""
    wanted = [reading for reading in readings if reading.name in requested]
    shown = {reading.name for reading in _closure(wanted, platform, follow_uses=False) if reading.public}
    needed = _closure(wanted, platform, follow_uses=True)
    return [reading for reading in readings if reading in needed], shown
