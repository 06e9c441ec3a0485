"""Connecting to Ray: an existing cluster by address, else a small local one started here.

A local cluster is sized for the actors it must hold (each takes one logical
CPU unless its `ActorSpec` says otherwise; logical CPUs may exceed the
machine's cores) with a small object store, no dashboard, and actor logs
kept out of the driver's stderr.  `ray.init` is called once per process; an
already connected process keeps its connection (an `address` is then not
used).  An address nobody answers at is an error within seconds.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from typing import Any

import ray

# 300 MiB: enough for the copies of the examples and the model corpus in flight.
OBJECT_STORE_BYTES = 300 * 1024 * 1024


def check_reachable(address: str, timeout: float) -> None:
    """`DeviceUnavailable` unless something listens at ``host:port`` (``ray://host:port``) within `timeout`.

    `ray.init` retries an address nobody answers at for minutes; this turns that into one error.
    ``auto`` and addresses without a port are left to Ray (it fails fast on them).
    """
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as err:
        from ..errors import DeviceUnavailable

        raise DeviceUnavailable(f"cannot reach the Ray cluster at {address}: {err}") from None


def connect(
    address: str | None, num_cpus: int, options: Mapping[str, Any] | None = None, timeout: float = 10.0
) -> None:
    """Make sure this process is connected to Ray: to `address`, or to a local cluster of `num_cpus` CPUs."""
    if ray.is_initialized():
        return
    if address is not None:
        check_reachable(address, timeout)
    settings: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address is None:
        settings["num_cpus"] = max(num_cpus, os.cpu_count() or 1)
        settings["object_store_memory"] = OBJECT_STORE_BYTES
    else:
        settings["address"] = address
    settings.update(options or {})
    try:
        ray.init(**settings)
    except (ConnectionError, RuntimeError, ValueError) as err:
        from ..errors import DeviceUnavailable

        where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
        raise DeviceUnavailable(f"cannot connect to {where}: {err}") from None
