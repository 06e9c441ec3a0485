"""The local Ray cluster vdplace starts (runtime/ray/cluster.py) listens on loopback only.

The test starts it as `vdplace run --ray` does, in a fresh process (a process
connects to Ray once, and the other Ray tests share one cluster they start
themselves), runs a program on it, and lists every listening TCP socket of
that process and of every process under it (GCS server, raylet, runtime-env
agent, the actors' workers) from /proc.  Skipped without Ray or off Linux.
"""

from __future__ import annotations

import ipaddress
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")
if not Path("/proc/net/tcp").exists():
    pytest.skip("listing sockets reads /proc (Linux)", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]

# Run in the child: start the cluster through RayExecutor, run the MLP example, list the listeners.
CHILD = r"""
import json, os, sys
import numpy as np
from vdplace import ir, placement, runtime
from vdplace.runtime.ray import RayExecutor


def tree(root):
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    found, todo = [root], [root]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found += kids
        todo += kids
    return found


def address(text, v6):
    raw = bytes.fromhex(text)
    if not v6:
        return ".".join(str(b) for b in raw[::-1])
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    return str(__import__("ipaddress").IPv6Address(words))


def listeners(root):
    table = {}
    for name, v6 in (("tcp", False), ("tcp6", True)):
        with open(f"/proc/net/{name}") as f:
            for line in f.readlines()[1:]:
                cols = line.split()
                if cols[3] == "0A":  # LISTEN
                    host, port = cols[1].split(":")
                    table[cols[9]] = (address(host, v6), int(port, 16))
    out = []
    for pid in tree(root):
        try:
            comm = open(f"/proc/{pid}/comm").read().strip()
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:  # the process ended
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:  # the file was closed meanwhile
                continue
            if link.startswith("socket:[") and link[8:-1] in table:
                out.append([pid, comm, *table[link[8:-1]]])
    return out


path = sys.argv[1]
placed = placement.place(ir.parse(open(path).read(), filename=path), default="host").module
exe = runtime.compile(placed)
inputs = runtime.random_inputs(placed, "main", rng=np.random.default_rng(0))
with RayExecutor(exe, timeout=120) as executor:
    executor.run("main", *inputs)
    print(json.dumps(listeners(os.getpid())))
"""


def is_loopback(host: str) -> bool:
    ip = ipaddress.ip_address(host)
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


def test_the_local_cluster_listens_on_loopback_only():
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT / "examples" / "mlp_two_devices.py")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    sockets = json.loads(done.stdout.strip().splitlines()[-1])
    names = {comm for _, comm, _, _ in sockets}
    # The servers a Ray node runs, each seen listening: the test sees the whole cluster, not a part of it.
    assert {"gcs_server", "raylet"} <= names and any(n.startswith("ray::VDevice") for n in names), sockets
    exposed = [s for s in sockets if not is_loopback(s[2])]
    assert not exposed, f"listening beyond loopback: {exposed}"


def test_loopback_detection_tells_wildcards_from_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("::ffff:127.0.0.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("192.0.2.2")
