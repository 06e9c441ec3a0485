"""`RayExecutor`: run an `Executable` with one Ray actor per physical device.

    exe = runtime.compile(placed)
    with RayExecutor(exe, devices={"cuda:0": "sim", "cuda:1": ActorSpec("gpu", node="10.0.0.7")}) as ray_exe:
        out = ray_exe.run("main", *inputs, profile=True)
        print(ray_exe.profile.table())

The executor plans one actor per physical device (`spec`), splits every
function by actor (`schedule`), starts the actors (`actor`) with the
executable, and for each run walks the control flow on the driver
(`driver`), which only ever passes object references; `faults` turns any
failure into one error within `timeout` (actors get `start_timeout` to
start: a resource no node has is an error, not a wait).  `retries=n` re-runs a run (a
micro-batch) whose actor died or that timed out, from its inputs, on
restarted actors, up to n times; a kernel that raises is never retried.
Inputs are never written: each actor works on its own copy.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import ray

from ..arguments import input_plan, load_arguments
from ..batch import concat_results, split_batch
from ..callstack import DEFAULT_MAX_CALL_DEPTH
from ..devices import CPU, DeviceArray
from ..diagnostics import Diagnostics
from ..errors import CompileError, DeviceUnavailable, InputError, VMError
from ..executable import DeviceTree, Executable
from ..frame import Frame
from ..instructions import Call, Invoke
from ..profile import Profile
from ..registers import release
from .actor import VDeviceActor
from .actor_steps import ELSEWHERE
from .cluster import connect
from .commands import IMPORT
from .driver import Walker, merge
from .errors import ActorDied, RayRunError, RunTimeout
from .faults import Tracker
from .profile import ActorFigures, RayProfile, instruction_rows
from .schedule import schedule
from .spec import ActorPlan, SpecLike, check_gpus, plan_actors

_RETRIABLE = (ActorDied, RunTimeout)
_MISSING = object()


class RayExecutor:
    """Runs `executable` on Ray actors; see the module docstring.  `address`: a cluster to join (None: local);
    `memory` (vdevice name -> bytes): the memory limits of those vdevices' actors (`ActorSpec.memory_limit`)."""

    def __init__(
        self,
        executable: Executable,
        devices: Mapping[str, SpecLike] | None = None,
        *,
        address: str | None = None,
        simulate_missing: bool = True,
        timeout: float = 600.0,
        start_timeout: float = 120.0,
        retries: int = 0,
        max_call_depth: int = DEFAULT_MAX_CALL_DEPTH,
        ray_init: Mapping[str, Any] | None = None,
        memory: Mapping[str, int] | None = None,
    ) -> None:
        if not timeout > 0 or isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"timeout must be > 0 and retries a non-negative int, got {timeout!r}, {retries!r}")
        self.executable = executable
        self.plans, self.actor_of = plan_actors(executable.vdevices, devices, simulate_missing, memory)
        self.schedules = schedule(executable, self.actor_of)
        _check_calls(executable)
        self.timeout = float(timeout)
        self.start_timeout = float(start_timeout)
        self.retries = retries
        self.max_call_depth = max_call_depth
        self.profile: RayProfile | None = None
        self.attempts = 0  # how many attempts the last run took (1 + the retries it used)
        self._diagnostics = Diagnostics(executable.device_name)
        self._frames = {name: _input_frame(fn) for name, fn in executable.functions.items()}
        self._ids = itertools.count()
        connect(address, int(sum(p.spec.num_cpus for p in self.plans) + 0.999), ray_init, min(self.start_timeout, 10))
        if address is None:  # a local cluster: what it has now is all it will ever have
            check_gpus(self.plans, ray.cluster_resources().get("GPU", 0))
        self._actor_class = ray.remote(VDeviceActor)
        self._executable_ref = ray.put(executable)
        self._actors: list[Any] = []
        self._start_actors()

    # -- actors ----------------------------------------------------------------------------
    def _start_actors(self) -> None:
        self._actors = [
            self._actor_class.options(**plan.spec.ray_options()).remote(
                self._executable_ref, self.plans, self.actor_of, i
            )
            for i, plan in enumerate(self.plans)
        ]
        pending = {a.where.remote(): p for a, p in zip(self._actors, self.plans, strict=True)}
        ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=self.start_timeout)
        for ref in pending:
            if ref not in ready:
                self.shutdown()
                raise DeviceUnavailable(
                    f"the actor of vdevice {pending[ref].label} did not start within {self.start_timeout:g} s: "
                    f"no node offers {pending[ref].spec.ray_options()}"
                )
            try:
                ray.get(ref)
            except Exception as err:  # noqa: BLE001  (the actor's constructor failed: no GPU, no memory)
                self.shutdown()
                raise DeviceUnavailable(f"the actor of vdevice {pending[ref].label} failed to start: {err}") from None

    def restart(self) -> None:
        """Replace every actor by a fresh one (after an actor died or a run timed out)."""
        self.shutdown()
        self._start_actors()

    def shutdown(self) -> None:
        """Kill the actors; the executor cannot run again until `restart`."""
        if ray.is_initialized():  # after ray.shutdown() the actors are gone already
            for actor in self._actors:
                ray.kill(actor)
        self._actors = []

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    @property
    def actors(self) -> list[tuple[ActorPlan, Any]]:
        """Each actor's plan and Ray handle (tests kill one to see the run fail cleanly)."""
        return list(zip(self.plans, self._actors, strict=True))

    # -- runs ------------------------------------------------------------------------------
    def run(self, entry: str = "main", *args: Any, profile: bool = False) -> Any:
        """Run `entry` on `args` (NumPy arrays); return NumPy arrays (tuples as tuples), like the local VM."""
        return self.run_many(entry, [args], profile=profile)[0]

    def run_pipelined(
        self, inputs: Sequence[Any], microbatches: int, entry: str = "main", profile: bool = False
    ) -> Any:
        """Split a batch into `microbatches` runs streamed through the actors; concatenate the results.

        Only the runtime inputs are split along axis 0 (`runtime.batch`: the
        first ``num_input`` parameters, or, without ``num_input``, the inputs
        with `microbatches` times their parameter's rows); weights and flags
        go whole, the same arrays, to every run.  A batch that cannot be split
        so is a `BatchError` naming the parameter.  Results are concatenated
        along axis 0.  While actor i works on micro-batch j, actor i+1 works
        on micro-batch j-1.
        """
        fn = self._entry(entry, len(inputs)).fn
        batches = split_batch(fn.params, fn.param_sinfo, fn.num_input, inputs, microbatches)
        return concat_results(self.run_many(entry, batches, profile=profile))

    def run_many(self, entry: str, batches: Sequence[Sequence[Any]], profile: bool = False) -> list[Any]:
        """Run `entry` once per argument tuple in `batches`, all in flight at once; the results in order."""
        frames = [self._entry(entry, len(b)) for b in batches]
        if not frames:
            return []
        results: list[Any] = [_MISSING] * len(batches)
        attempt = 0
        while True:
            todo = [i for i, r in enumerate(results) if r is _MISSING]
            self.attempts = attempt + 1
            try:
                self._attempt(entry, [(i, frames[i], batches[i]) for i in todo], results, profile)
                return results
            except _RETRIABLE as err:
                try:
                    self.restart()
                except VMError as failed:
                    raise err from failed  # the run's own error; the executor stays shut down
                if attempt >= self.retries:
                    raise
                attempt += 1
            except VMError:
                self._reset()
                raise

    def _entry(self, entry: str, num_args: int) -> Frame:
        if not self._actors:
            raise VMError("this RayExecutor was shut down; call restart() to run again")
        if entry not in self._frames:
            raise VMError(f"no function {entry!r} in the executable; it has {', '.join(self._frames)}")
        fn = self._frames[entry].fn
        if num_args != len(fn.params):
            raise InputError(f"{entry} takes {len(fn.params)} argument(s) ({', '.join(fn.params)}), got {num_args}")
        return self._frames[entry]

    def _attempt(self, entry: str, work: list[tuple[int, Frame, Sequence[Any]]], results: list, profile: bool) -> None:
        """Submit every run of `work`, wait, and fill `results`; the profile covers this attempt."""
        began = time.perf_counter()
        tracker = Tracker([p.label for p in self.plans], self._describe, time.monotonic() + self.timeout)
        walker = Walker(self.schedules, self._actors, tracker, self.max_call_depth, self._ids)
        for a in range(len(self._actors)):
            walker.add(a, ("begin", -1, profile))
        puts: dict[int, tuple[np.ndarray, Any]] = {}
        starts = [(index, self._starts(frame, args, puts)) for index, frame, args in work]  # every input checked first
        finals: dict[int, dict[int, Any]] = {}
        try:
            for index, actor_starts in starts:
                finals[index] = walker.submit(entry, actor_starts, index)
            walker.flush_all(work[-1][0], (entry, len(self.executable[entry].instructions) - 1))
            tracker.wait_all()
        except VMError:
            done = tracker.completed_batches()
            for index in done & finals.keys():
                results[index] = merge([tracker.get(r)[-1] for r in finals[index].values()])
            raise
        received = 0
        for index, last in finals.items():
            results[index] = merge([tracker.get(r)[-1] for r in last.values()])
            received += _nbytes(results[index])
        wall = time.perf_counter() - began
        sent = sum(array.nbytes for array, _ in puts.values())
        self.profile = self._profile(wall, sent, received, walker.condition_reads)

    def _starts(self, frame: Frame, args: Sequence[Any], refs: dict) -> list[tuple[tuple, list, Any]]:
        """Each actor's start: its argument tree, the input refs it receives, the symbolic dims.

        `refs` (array id -> (the array, its ref)) is shared by the runs of one
        call: an array given to several runs (weights) is put in the object store once.
        """
        values = load_arguments(frame, tuple(args), {})  # checks dtypes and shapes; CPU arrays, no copy
        try:
            env = _bind_symbols(frame, values) if frame.fn.symbols else None
            starts: list[tuple[tuple, list, Any]] = []
            for a in range(len(self.plans)):
                imports: list[Any] = []
                pairs = zip(frame.fn.param_devices, values, strict=True)
                trees = [self._argument(a, t, v, imports, refs) for t, v in pairs]
                starts.append((tuple(trees), imports, env))
            return starts
        finally:
            for v in values:
                release(v)

    def _argument(self, actor: int, tree: DeviceTree, value: Any, imports: list, refs: dict) -> Any:
        """Actor `actor`'s view of one argument: `IMPORT` for its own tensors, `ELSEWHERE` for others'."""
        if isinstance(tree, tuple):
            return tuple(self._argument(actor, t, v, imports, refs) for t, v in zip(tree, value, strict=True))
        if value.__class__ is not DeviceArray:
            return value  # a shape or a scalar: every actor gets it
        assert tree is not None, "a tensor parameter has a vdevice (compile checked it)"
        if self.actor_of[tree] != actor:
            return ELSEWHERE
        key = id(value.data)
        if key not in refs:
            refs[key] = (value.data, ray.put(value.data))  # the array kept alive: its id stays its own
        imports.append(refs[key][1])
        return IMPORT

    def _describe(self, function: str, pc: int) -> str:
        frame = self._frames[function]
        origin = frame.fn.instructions[pc].origin
        return self._diagnostics.text(frame, pc) + (f" ({origin.describe()})" if origin is not None else "")

    def _reset(self) -> None:
        """Drop the frames a failed run left on the live actors (dead ones are restarted on the next failure)."""
        refs = [a.reset.remote() for a in self._actors]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=min(self.timeout, 10.0))
        for ref in ready:
            try:
                ray.get(ref)
            except Exception:  # noqa: BLE001  (an actor that died; the next run's failure restarts it)
                pass

    def _profile(self, wall: float, sent: int, received: int, condition_reads: int) -> RayProfile:
        try:
            reports = ray.get([a.report.remote() for a in self._actors], timeout=self.timeout)
        except Exception as err:  # noqa: BLE001  (an actor gone or stuck after the run: its results are in)
            raise RayRunError(f"the run finished but its profile could not be collected: {err}") from None
        copies: dict = {}
        for r in reports:
            for pair, (n, b) in r["copies"].items():
                acc = copies.setdefault(pair, [0, 0])
                acc[0] += n
                acc[1] += b
        transfers = {}
        for r in reports:
            if r["inputs"][0]:
                transfers[("host", r["device"])] = list(r["inputs"])
            if r["outputs"][0]:
                transfers[(r["device"], "host")] = list(r["outputs"])
        rows = instruction_rows(self.executable, self.schedules, reports)
        memory = {r["device"]: r["memory"] for r in reports}
        local = Profile(bool(rows), wall, rows, copies, transfers, memory, {})
        actors = [ActorFigures(p.label, r, wall) for p, r in zip(self.plans, reports, strict=True)]
        return RayProfile(local, actors, wall, sent, received, condition_reads)


def _input_frame(fn: Any) -> Frame:
    """A frame whose inputs are checked and placed on one host CPU device (the driver's view)."""
    frame = Frame(fn)
    host = CPU("driver", memory_limit=None)

    def tree(t: DeviceTree) -> Any:
        return tuple(tree(x) for x in t) if isinstance(t, tuple) else (None if t is None else host)

    frame.param_devices = [tree(t) for t in fn.param_devices]
    frame.input_plans = [input_plan(s, d) for s, d in zip(fn.param_sinfo, frame.param_devices, strict=True)]
    return frame


def _check_calls(executable: Executable) -> None:
    """A called function may not bind symbolic dims, nor may an ``R.match_cast``: the shapes they read live
    on the actors, and the dims bound on one actor would be unknown to the others and to the driver."""
    for fn in executable.functions.values():
        for pc, instr in enumerate(fn.instructions):
            if isinstance(instr, Call) and instr.op.name == "match_cast":
                raise CompileError(
                    f"the Ray executor cannot run {fn.name}:{pc}, an R.match_cast: it binds symbolic dims "
                    "from a shape known only where the value is; run it on the local VM"
                )
            if isinstance(instr, Invoke) and executable[instr.function].symbols:
                raise CompileError(
                    f"the Ray executor cannot run {fn.name}:{pc} (a call of {instr.function}): "
                    f"{instr.function} binds symbolic dims ({executable[instr.function].symbols[0].name}, ...) "
                    "from its parameters; run it on the local VM"
                )


def _bind_symbols(frame: Frame, values: list) -> dict[str, int]:
    env: dict[str, int] = {}
    for s in frame.fn.symbols:
        v = values[s.param]
        for i in s.path:
            v = v[i]
        env[s.name] = int(v.data.shape[s.axis])
    return env


def _nbytes(value: Any) -> int:
    if isinstance(value, tuple):
        return sum(_nbytes(v) for v in value)
    return value.nbytes if isinstance(value, np.ndarray) else 0
