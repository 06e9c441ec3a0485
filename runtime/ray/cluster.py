"""Connecting to Ray: an existing cluster by address, else a small local one started here.

A local cluster is sized for the actors it must hold (each takes one logical
CPU unless its `ActorSpec` says otherwise; logical CPUs may exceed the
machine's cores) with a small object store, no dashboard, and actor logs
kept out of the driver's stderr.  `ray.init` is called once per process; an
already connected process keeps its connection (an `address` is then not
used).  An address nobody answers at is an error within seconds.

A local cluster listens on loopback only (`loopback_node`): its GCS server,
raylet, object manager, runtime-env agent and every worker, the driver's
included, bind 127.0.0.1, so nothing off this machine can reach them.  Ray
2.60 also turns on its token authentication for a cluster `ray.init` starts
(unless ``RAY_AUTH_MODE`` says otherwise), which guards it against other
users of this machine.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from typing import Any

import ray

# 300 MiB: enough for the copies of the examples and the model corpus in flight.
OBJECT_STORE_BYTES = 300 * 1024 * 1024

# Ray's switch between a single-machine node (loopback address) and a cluster node.
SINGLE_MACHINE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextmanager
def loopback_node() -> Iterator[None]:
    """While it is open, a node `ray.init` starts takes the address 127.0.0.1, and its servers bind loopback.

    Ray binds its gRPC servers on every interface unless the node's address
    is loopback, and replaces an ``_node_ip_address`` of 127.0.0.1 by the
    machine's network address whenever cluster mode is on (the default on
    Linux).  Ray reads the switch, ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER``, once,
    when it is imported, into ``ray._private.ray_constants.ENABLE_RAY_CLUSTER``;
    both are set to off here (the variable for the processes the node starts)
    and restored afterwards: the node keeps its address for its lifetime.
    """
    from ray._private import ray_constants

    saved_env, saved_flag = os.environ.get(SINGLE_MACHINE_ENV), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[SINGLE_MACHINE_ENV] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            os.environ.pop(SINGLE_MACHINE_ENV, None)
        else:
            os.environ[SINGLE_MACHINE_ENV] = saved_env


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
        settings["dashboard_host"] = "127.0.0.1"
    else:
        settings["address"] = address
    settings.update(options or {})
    try:
        with loopback_node() if address is None else nullcontext():
            ray.init(**settings)
    except (ConnectionError, RuntimeError, ValueError) as err:
        from ..errors import DeviceUnavailable

        where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
        raise DeviceUnavailable(f"cannot connect to {where}: {err}") from None
