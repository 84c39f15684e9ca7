# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The facts actions' one batch and their gathers, from the readings the registry's faults declare.

``batch_of(readings, platform)``: the batch steps of ``readings`` (``faults/reading.py``'s
``Reading``, in gather order) on ``platform``, each step once (a step two readings list, such as
``ip -j route show table all``, runs once, where the first lists it), then one ``ForEachLine`` per
shared loop (``LoopLines`` with the same commands, merged: one ``ethtool -k`` per device for the
bridges and the default routes alike). ``gather_readings(action, readings, platform, args)`` runs
each reading's ``gather`` in order and returns ``{name: facts}``.

Pure but for the gathers, which read the action's batch (``OpenWrtActionBase.step``).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import ForEachLine, Step


def _merged_loop(parts) -> ForEachLine:
    """One ForEachLine for ``parts`` (LoopLines with the same commands): the snippets in turn, a ``shift`` past the
    inputs of the ones before, so each reads its own inputs as ``"$1"``...; one reading ``"$@"`` goes last."""
    last = [part for part in parts if '"$@"' in part.lines]
    if len(last) > 1:
        raise ValueError("batch loop %r: two snippets read \"$@\"" % (parts[0].commands,))
    parts = [part for part in parts if part not in last] + last
    lines, inputs = [], []
    for part in parts:
        if inputs:
            lines.append("shift" if len(inputs) == 1 else "shift %d" % len(inputs))
        lines.append(part.lines)
        inputs = list(part.inputs)
    return ForEachLine("\n".join(lines), tuple(name for part in parts for name in part.inputs), tuple(parts[0].commands))


def batch_of(readings, platform) -> list:
    """The batch for ``readings`` on ``platform`` (module doc). Raises ValueError for two different steps of one name."""
    steps, named, loops = [], {}, {}
    for reading in readings:
        read = reading.on(platform)
        for step in read.steps:
            if isinstance(step, Step):
                if step.name in named:
                    if named[step.name] != step:
                        raise ValueError("batch: two different steps are named %r (reading %s)" % (step.name, reading.name))
                    continue
                named[step.name] = step
            elif step in steps:
                continue
            steps.append(step)
        for part in read.loops:
            loops.setdefault(tuple(tuple(argv) for argv in part.commands), []).append(part)
    return steps + [_merged_loop(parts) for parts in loops.values()]


def gather_readings(action, readings, platform, args) -> dict:
    """``{reading name: facts}``: each reading's ``gather(action, facts so far, args)`` on ``platform``, in order."""
    facts = {}
    for reading in readings:
        facts[reading.name] = reading.on(platform).gather(action, facts, args)
    return facts
