# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Callback of the slots benchmark (bench/slots.py): when each play and each task started, and when each
host's run of each task started and ended, as one JSON file (the path in TFS_TIMELINE).

Enabled only by bench/slots.py (ANSIBLE_CALLBACK_PLUGINS=bench/callback_plugins,
ANSIBLE_CALLBACKS_ENABLED=...,slots_timeline); not part of the collection. Output::

    {"start": 1796214480.1, "end": 1796214512.3,
     "plays": [{"name": "Verify every peer against the thresholds", "start": 1796214483.0}, ...],
     "runs": [{"play": 3, "task": "Run a single TCP flow from the peer to the hub", "action": "tunnelfix.fleet.iperf3",
               "role": "tunnel_measure", "host": "tfs-peer-01", "start": 1796214485.2, "end": 1796214489.4,
               "status": "ok"}, ...]}

Times are epoch seconds (time.time()) on the controller, taken when the strategy hands the run to a worker
and when it collects the result.
"""

from __future__ import annotations

DOCUMENTATION = r"""
name: slots_timeline
type: aggregate
short_description: Per-host task start and end times as JSON, for bench/slots.py
description:
  - Writes the plays' start times and every host's task runs (start, end, status) to the file named by the
    environment variable C(TFS_TIMELINE) at the end of the playbook.
requirements:
  - C(ANSIBLE_CALLBACK_PLUGINS) naming bench/callback_plugins and C(ANSIBLE_CALLBACKS_ENABLED) naming slots_timeline.
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "slots_timeline"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._doc = {"start": time.time(), "end": None, "plays": [], "runs": []}
        self._open = {}

    def v2_playbook_on_play_start(self, play):
        self._doc["plays"].append({"name": play.get_name(), "start": time.time()})

    def v2_runner_on_start(self, host, task):
        role = task._role.get_name() if task._role else None
        run = {"play": len(self._doc["plays"]) - 1, "task": task.get_name(), "action": task.action, "role": role,
               "host": host.get_name(), "start": time.time(), "end": None, "status": None}
        self._doc["runs"].append(run)
        self._open[(host.get_name(), task._uuid)] = run

    def _end(self, result, status):
        run = self._open.pop((result._host.get_name(), result._task._uuid), None)
        if run is not None:
            run["end"], run["status"] = time.time(), status

    def v2_runner_on_ok(self, result):
        self._end(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._end(result, "ignored" if ignore_errors else "failed")

    def v2_runner_on_skipped(self, result):
        self._end(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self._end(result, "unreachable")

    def v2_playbook_on_stats(self, stats):
        self._doc["end"] = time.time()
        path = os.environ.get("TFS_TIMELINE")
        if path:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(self._doc, f)
