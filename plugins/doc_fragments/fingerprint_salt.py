# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The other option both facts actions share (tunnel_facts, openwrt_facts): the run's salt of the preshared key
fingerprints (plugins/plugin_utils/remote/psk_fingerprint.py)."""

from __future__ import annotations


class ModuleDocFragment:  # pylint: disable=too-few-public-methods
    """``fingerprint_salt``: the same for every host of a run, so both ends' fingerprints can be compared."""

    DOCUMENTATION = r"""
options:
  fingerprint_salt:
    description:
      - 32 lower-case hex digits, the run's salt for the preshared key fingerprints (C(preshared_key_fingerprint) of
        each peer with a preshared key - the first 16 hex digits of sha256 of the salt and the key, made on the host;
        the key never leaves it, is never on a command line, in a file or the output). Give every host of a run the
        same salt (playbooks/facts.yml makes one per run on localhost) so the tunnel graph can tell whether both ends
        of a tunnel hold the same key; it compares fingerprints of one salt only (C(preshared_key_salt_id)).
      - Left out, each execution makes a salt of its own (16 random bytes) - fingerprints that match no other host's.
      - Not returned, not logged (no_log).
    type: str
"""
