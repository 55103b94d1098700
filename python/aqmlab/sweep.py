"""``aqmlab sweep``: run a scenario over axes of values and seeds, in parallel, cached by content.

A sweep's folder is its API (docs/data-format.md, "Sweeps"):

* ``runs/<key>/``: each run's own folder (``summary.json``, time series, ``run.json`` saying
  which point and seed it is and how it was made). ``<key>`` is a hash of everything that
  decides the run's results: the resolved scenario (``Run.resolved_toml()``), the content of
  every file it names (a link's trace), the seed, and aqmlab's version and build.
  A run whose folder exists is not simulated again, so a sweep run twice simulates nothing,
  and a sweep interrupted (Ctrl-C, SIGTERM, a killed machine) and started again runs only
  what is missing. A folder appears only when its run has finished: runs are written under a
  temporary name and renamed. A cached run whose files cannot be read (a truncated
  ``summary.json``, a missing ``run.json``) is removed, with a warning, and simulated again.
* ``results.parquet``, ``results.csv``: one row per point and seed; the axes' columns,
  ``seed``, ``run`` (the key), ``error`` (empty unless the run failed) and every metric of
  :func:`aqmlab.metrics.flatten`.
* ``summary.csv``: per point and metric, mean, standard deviation, n and the 95 % t interval
  over seeds (:func:`aqmlab.stats.summarize`).
* ``sweep.json``: the spec, the command, aqmlab's version and build, and the runs.

The folder holds nothing else (``figures/`` and ``report.html`` of ``aqmlab plot`` and
``aqmlab report`` aside): a sweep refuses a folder holding other files, rather than overwrite a
file it did not write. While a sweep writes its folder it holds the folder's lock,
``.NAME.lock`` beside it (:func:`aqmlab.outdir.lock_beside`, the one ``aqmlab run`` takes): a
second sweep, or a run, into the same folder is refused at its start. Each table is written
under a hidden temporary name and renamed into place.

The runs execute on ``jobs`` local workers: this process and ``jobs - 1`` worker processes,
or threads of this process (``executor="thread"``; the simulator releases the GIL); or on a
Dask cluster (``dask``). Each worker simulates into a private temporary folder and hands back
the folder's files; only the process that started the sweep writes into its folder. The tables
are built from the run folders in a fixed order, so they are identical byte for byte however
the runs were executed.

Planning (every run loaded, checked and keyed, and the path of a ``--vary`` value to the
native loader) is :mod:`aqmlab.sweepplan`'s."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError, ScenarioError
from aqmlab.process import alive
from aqmlab.sweepplan import Task, _file_hash, plan, reducer_identity, run_key
from aqmlab.sweepresult import SweepResult, results_frame, write_frames
from aqmlab.sweepspec import QDISC_PREFIX, Axis, SweepSpec

#: Files of a run folder that a worker hands back (every regular file it wrote).
RUN_MANIFEST = "run.json"
#: The lock earlier versions held inside a sweep's folder (now ``.NAME.lock`` beside it, as a
#: run's): still accepted in a folder, never written.
LOCK = ".sweep.lock"
#: What a sweep's folder may hold: what the sweep writes, and what ``aqmlab plot`` and
#: ``aqmlab report`` add (hidden ``.NAME.partial`` files are the tables being written).
SWEEP_ENTRIES = {
    "results.parquet",
    "results.csv",
    "summary.csv",
    "sweep.json",
    "runs",
    "figures",
    "report.html",
    LOCK,
}
#: What a sweep's reducer made of a run (``SweepSpec.reduce``).
REDUCED = "reduced.json"


@dataclass
class Outcome:
    key: str
    files: dict[str, bytes] | None
    error: str | None
    wall_s: float


# --- executing one run (in a worker) --------------------------------------------------------


def execute(task: Task, work_dir: str | None = None) -> Outcome:
    """Simulate one run into a private temporary folder (in ``work_dir``, else the system's
    temporary folder) and return its files. Never raises: a failure comes back as the
    outcome's error."""
    from aqmlab import _core
    from aqmlab.run import simulate

    t0 = time.monotonic()
    changed = _changed_file(task)
    if changed is not None:
        return Outcome(task.key, None, changed, time.monotonic() - t0)
    tmp = tempfile.mkdtemp(prefix=".tmp-run-" if work_dir else "aqmlab-run-", dir=work_dir)
    try:
        try:
            # The resolved scenario planning keyed, as it is: no edit, no override (its seed
            # and its disciplines are in it). The sweep gave the warnings once, while planning.
            resolved = zlib.decompress(task.resolved).decode()
            r = _core.load_scenario(task.path, text=resolved, warn=False)
            if r.resolved_toml() != resolved:  # what a loader change would break: not keyed
                raise AqmlabError(f"{task.path}: its resolved scenario does not load as itself")
            del resolved
            simulate(r, tmp, progress=False, keep=False, provenance=task.provenance)
        except AqmlabError as e:
            return Outcome(task.key, None, str(e), time.monotonic() - t0)
        except Exception as e:  # noqa: BLE001 - a crash of one run is that run's failure
            return Outcome(task.key, None, f"{type(e).__name__}: {e}", time.monotonic() - t0)
        if task.reduce:
            try:
                _reduce(task, tmp)
            except Exception as e:  # noqa: BLE001 - the reducer's failure is the run's
                return Outcome(task.key, None, f"reduce {task.reduce}: {e}", time.monotonic() - t0)
        files = {}
        for name in sorted(os.listdir(tmp)):
            p = os.path.join(tmp, name)
            if os.path.isfile(p):
                with open(p, "rb") as f:
                    files[name] = f.read()
        return Outcome(task.key, files, None, time.monotonic() - t0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _changed_file(task: Task) -> str | None:
    """The error of a run whose files (a trace) are not those its key was made from: edited
    since the sweep was planned, or another file at the same path on a remote worker."""
    for path, digest in (task.files or {}).items():
        try:
            now = _file_hash(path)
        except ScenarioError as e:
            return str(e)
        if now != digest:
            return (
                f"{path}: changed since the sweep was planned (or differs on this worker): "
                "run the sweep again"
            )
    return None


def _reduce(task: Task, folder: str) -> None:
    """Run the sweep's reducer on a finished run's folder, in the worker: it turns what the run
    wrote (a packet log, say) into numbers, written as ``reduced.json``; the packet log is then
    left out of the run's folder, so a long run's log never leaves the worker's disk."""
    import importlib

    module, _, name = task.reduce.rpartition(":")
    if module.endswith(".py"):  # a file's path: loaded as a module of its own
        import importlib.util

        spec = importlib.util.spec_from_file_location(f"aqmlab_reducer_{name}", module)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    else:
        mod = importlib.import_module(module)
    fn = getattr(mod, name)
    numbers = fn(folder, task.point, task.sets, **(task.reduce_args or {}))
    with open(os.path.join(folder, REDUCED), "w", encoding="utf-8") as f:
        json.dump(numbers, f, indent=2, sort_keys=True)
        f.write("\n")
    for ext in ("parquet", "csv"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(folder, f"packets.{ext}"))


class _Stopped(Exception):
    """Raised in a run going on in this process when the sweep is interrupted."""


def _worker_init(sweep_pid: int, forked: bool) -> None:
    # Ctrl-C reaches the whole process group: only the sweep's own process handles it, and it
    # ends the workers itself (with SIGTERM, which ends a worker at once: a forked worker does
    # not keep the sweep's own handlers).
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    _die_with_parent(sweep_pid, forked)


#: prctl(2)'s option: the signal this process gets when its parent ends.
_PR_SET_PDEATHSIG = 1


def _die_with_parent(sweep_pid: int, forked: bool) -> None:
    """Ends this worker when the process that started it ends, however it ends (``kill -9``
    included), so that no worker outlives its sweep (one would otherwise simulate on, then block
    for ever writing its result to a pipe nobody reads). A worker forked from the sweep's process
    asks Linux's kernel for SIGKILL when its parent ends (``prctl(PR_SET_PDEATHSIG)``). A
    forkserver's worker cannot (its parent is the forkserver, which lives on while any worker
    holds the copy of the sweep's "alive" pipe that multiprocessing gives each), nor can a
    worker elsewhere: a thread looks at the sweep's process twice a second."""
    import signal

    armed = False
    if forked and sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    # The sweep may have ended before the signal was asked for: then none comes. (A forked
    # worker's parent is the sweep's process, which may be a zombie not yet reaped: then this
    # worker has a new parent.)
    if not alive(sweep_pid) or (forked and os.getppid() != sweep_pid):
        os._exit(1)
    if not armed:

        def watch() -> None:
            while alive(sweep_pid):
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()


#: What a run imports: imported once before the workers start, so that none pays for it again.
RUN_MODULES = ["aqmlab.sweep", "aqmlab.run", "aqmlab.series", "aqmlab.outdir"]

#: Settings under which importing pyarrow (and numpy, which it imports) starts no thread:
#: jemalloc's background purging thread, OpenBLAS's pool.
_NO_LIBRARY_THREADS = {
    "JE_ARROW_MALLOC_CONF": "background_thread:false",
    "OPENBLAS_NUM_THREADS": "1",
}


def _threads() -> int:
    """This process's threads (Linux lists them in /proc/self/task); 0 where unknown."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


def _import_run_modules() -> None:
    """Imports :data:`RUN_MODULES`; in a process that runs a single thread, with the settings
    that keep it so (set only while importing: programs started later do not inherit them)."""
    import importlib

    from aqmlab.environ import setting

    with setting(_NO_LIBRARY_THREADS if _threads() == 1 else {}):
        for m in RUN_MODULES:
            importlib.import_module(m)


def _worker_context() -> Any:
    """How worker processes start. When this process runs a single thread once what a run needs
    is imported (the command line does), they are forked from it: ready in milliseconds, with
    everything imported. Otherwise (a notebook, a program with threads of its own) a fork
    could copy a lock another thread holds, so they are forked from a server process started for
    the purpose, which imports what a run needs once (about 0.4 s before the first worker
    starts)."""
    import multiprocessing

    _import_run_modules()
    if _threads() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(RUN_MODULES)
    return ctx


# --- the run folders ------------------------------------------------------------------------


def _runs_dir(out: str) -> str:
    return os.path.join(out, "runs")


def _store(out: str, task: Task, outcome: Outcome) -> None:
    """Put a finished run in place: written under a temporary name, then renamed, so a run
    folder exists only whole."""
    from aqmlab import __version__, _core

    final = os.path.join(_runs_dir(out), task.key)
    tmp = os.path.join(_runs_dir(out), f".tmp-{task.key}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for name, data in (outcome.files or {}).items():
        with open(os.path.join(tmp, name), "wb") as f:
            f.write(data)
    manifest = {
        "key": task.key,
        "point": task.point,
        "seed": task.seed,
        "scenario": task.scenario,
        "set": {k: str(v) for k, v in task.sets.items()},
        "unset": task.unset or [],
        "qdisc": task.qdisc,
        "aqmlab_version": __version__,
        "build": getattr(_core, "BUILD", "unknown"),
        "source_hash": getattr(_core, "SOURCE_HASH", "unknown"),
    }
    with open(os.path.join(tmp, RUN_MANIFEST), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, default=str)
        f.write("\n")
    try:
        os.rename(tmp, final)
    except OSError:
        # Another process finished the same run first: its folder holds the same results.
        shutil.rmtree(tmp, ignore_errors=True)
        if not _is_done(out, task.key):
            raise


def _is_done(out: str, key: str) -> bool:
    return os.path.isfile(os.path.join(_runs_dir(out), key, RUN_MANIFEST))


def _cached(out: str, key: str, reduced: bool) -> bool:
    """Whether run ``key`` is in the cache, whole. A run folder whose files cannot be read (a
    truncated ``summary.json``, a missing ``run.json``: a disk that filled, a hand edit) is
    removed with a warning, so the run is simulated again."""
    path = os.path.join(_runs_dir(out), key)
    if not os.path.lexists(path):
        return False
    why = _broken(path, key, reduced)
    if why is None:
        return True
    print(
        f"aqmlab: warning: {path}: a broken cached run ({why}): removed, and simulated again",
        file=sys.stderr,
    )
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.remove(path)
    return False


def _broken(path: str, key: str, reduced: bool) -> str | None:
    """What is wrong with the run folder ``path`` (None: nothing the tables would trip on)."""
    if not os.path.isdir(path) or os.path.islink(path):
        return "not a folder"
    names = [RUN_MANIFEST, "summary.json"] + ([REDUCED] if reduced else [])
    for name in names:
        try:
            with open(os.path.join(path, name), encoding="utf-8") as f:
                doc = json.load(f)
        except FileNotFoundError:
            return f"no {name}"
        except (OSError, UnicodeDecodeError, ValueError) as e:
            return f"{name} cannot be read: {e}"
        if not isinstance(doc, dict):
            return f"{name} is not a JSON object"
        if name == RUN_MANIFEST and doc.get("key") != key:
            return f"{name} names run {doc.get('key')!r}"
        if name == "summary.json":
            from aqmlab.metrics import not_a_summary

            why = not_a_summary(doc)
            if why is not None:
                return f"{name} {why}"
    return None


def _clean_partial(out: str) -> None:
    """Remove what an interrupted sweep left half-written: every hidden entry of ``runs/``
    (a run folder's name is its key; the temporary folders a run is simulated and stored in,
    and their staging folders and locks, all start with a dot), and the tables' temporary
    files (``.NAME.partial``)."""
    for folder, only in ((_runs_dir(out), ""), (out, ".partial")):
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            if name.startswith(".") and name.endswith(only) and name != LOCK:
                path = os.path.join(folder, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.remove(path)


def _is_ours(out: str) -> bool:
    """Whether everything in ``out`` is what a sweep writes (or plot and report add): the
    tables beside the ``sweep.json`` a sweep writes with them, ``runs/`` holding run folders
    (named by their 20-digit key) and hidden temporary entries, and hidden temporary tables."""
    with os.scandir(out) as entries:
        names = {
            e.name for e in entries if not (e.name.startswith(".") and e.name.endswith(".partial"))
        }
    if names - SWEEP_ENTRIES:
        return False
    if names - {"runs", LOCK} and not _is_manifest(os.path.join(out, "sweep.json")):
        return False  # a results.csv of the user's own, say
    runs = _runs_dir(out)
    if os.path.lexists(runs):
        if not os.path.isdir(runs) or os.path.islink(runs):
            return False
        with os.scandir(runs) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if not (_is_key(entry.name) and entry.is_dir(follow_symlinks=False)):
                    return False
    return True


def _is_manifest(path: str) -> bool:
    """Whether ``path`` is a sweep's ``sweep.json``."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(doc, dict) and "runs" in doc and "format_version" in doc


def _is_key(name: str) -> bool:
    return len(name) == 20 and all(c in "0123456789abcdef" for c in name)


class SweepFolder:
    """A sweep's folder, made ready to write: refused if it holds files a sweep did not write
    (:func:`aqmlab.outdir.foreign_files`, as ``aqmlab run`` refuses), locked for the sweep's
    life (:func:`aqmlab.outdir.lock_beside`, the lock a run of the folder takes too: a second
    sweep or a run into it is refused at its start, and a killed sweep's lock is released by
    the kernel), and cleaned of what an interrupted sweep left half-written. The lock is taken
    before the folder is checked, so a run writing it is named as such."""

    def __init__(self, out: str) -> None:
        from aqmlab.outdir import OutputError, final_path, foreign_files, lock_beside

        self.out = out
        self._lock: Any = lock_beside(final_path(out), out, "sweep")
        #: Whether this sweep made the folder (a failure before any run then takes it away).
        self.made = not os.path.lexists(out)
        try:
            if os.path.lexists(out):
                if not os.path.isdir(out):
                    import errno

                    raise OutputError(errno.ENOTDIR, "exists and is not a folder", out)
                if not _is_ours(out):
                    raise foreign_files(out, "sweep", "write into it")
            os.makedirs(_runs_dir(out), exist_ok=True)
            # Holding the lock, no other sweep writes here: hidden temporary entries are what
            # a killed sweep left behind.
            _clean_partial(out)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def remove_if_unused(self) -> None:
        """Takes away the folder this sweep made if nothing was written into it (a failure
        before the first run: an unreachable Dask scheduler), so a failed command leaves
        nothing behind. Call it holding the lock."""
        runs = _runs_dir(self.out)
        if self.made and os.listdir(self.out) == ["runs"] and not os.listdir(runs):
            os.rmdir(runs)
            os.rmdir(self.out)


# --- progress ---------------------------------------------------------------------------------


class Progress:
    """``[#####.....] 12/40 runs, 3 cached, 1 failed, ETA 0:32`` on stderr."""

    def __init__(self, total: int, cached: int, show: bool) -> None:
        self.total, self.cached, self.show = total, cached, show
        self.done = cached
        self.failed = 0
        self.t0 = time.monotonic()
        self.drawn = False

    def tick(self, failed: bool) -> None:
        self.done += 1
        self.failed += failed
        self.draw()

    def draw(self) -> None:
        if not self.show:
            return
        width = 30
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        ran = self.done - self.cached
        elapsed = time.monotonic() - self.t0
        left = self.total - self.done
        eta = "--:--" if ran == 0 else _clock(elapsed / ran * left)
        sys.stderr.write(
            f"\r[{bar}] {self.done}/{self.total} runs, {self.cached} cached, "
            f"{self.failed} failed, {_clock(elapsed)} elapsed, ETA {eta} "
        )
        sys.stderr.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")


def _clock(s: float) -> str:
    s = int(round(s))
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


# --- running ----------------------------------------------------------------------------------


def _run_local(
    todo: list[Task],
    out: str,
    jobs: int,
    executor: str,
    on_done: Callable[[Task, Outcome], None],
) -> None:
    """Runs ``todo`` on ``jobs`` workers, calling ``on_done`` in this thread as each finishes.

    Each worker is a thread of this process taking the next task from a shared queue (so the
    runs spread over the workers however long each takes). With ``executor="process"`` every
    worker but the first hands its task to a worker process (:func:`_worker_context`), whose
    runs are isolated from this process; the first runs its tasks here, from the start. The
    runs simulate in temporary folders inside ``out/runs/``, so what a worker killed mid-run
    leaves behind goes when the sweep next starts (``_clean_partial``).
    """
    run_one = functools.partial(execute, work_dir=_runs_dir(out))
    if jobs <= 1 or len(todo) <= 1:
        for t in todo:
            on_done(t, run_one(t))
        return
    import queue

    from aqmlab.run import stopped_by

    tasks = queue.SimpleQueue()
    for t in todo:
        tasks.put(t)
    finished: queue.SimpleQueue = queue.SimpleQueue()
    stop = threading.Event()

    def raise_if_stopped() -> None:
        if stop.is_set():
            raise _Stopped

    pool = None
    if executor == "process":
        import concurrent.futures as cf

        ctx = _worker_context()
        pool = cf.ProcessPoolExecutor(
            max_workers=jobs - 1,
            mp_context=ctx,
            initializer=_worker_init,
            initargs=(os.getpid(), ctx.get_start_method() == "fork"),
        )
        # Start the worker processes now, before this process runs any thread of its own (a
        # fork must not copy a process mid-way through another thread's work).
        pool.submit(int).result()

    def in_process(t: Task) -> Outcome:
        with stopped_by(raise_if_stopped):
            return run_one(t)

    def in_worker_process(t: Task) -> Outcome:
        assert pool is not None
        return pool.submit(run_one, t).result()

    def worker(runner: Callable[[Task], Outcome]) -> None:
        while not stop.is_set():
            try:
                t = tasks.get_nowait()
            except queue.Empty:
                break
            try:
                outcome = runner(t)
            except BaseException as e:  # noqa: BLE001 - a worker process that died, a panic
                outcome = Outcome(t.key, None, f"worker failed: {type(e).__name__}: {e}", 0.0)
            finished.put((t, outcome))
        finished.put(None)  # this worker is idle for good

    runners = [in_process] + [in_worker_process if pool else in_process] * (jobs - 1)
    threads = [threading.Thread(target=worker, args=(r,), daemon=True) for r in runners]
    for th in threads:
        th.start()
    try:
        idle = 0
        while idle < len(threads):
            try:
                # A timeout, so Ctrl-C and SIGTERM's handler run at once in this thread.
                item = finished.get(timeout=0.2)
            except queue.Empty:
                continue
            if item is None:
                idle += 1
                continue
            on_done(*item)
    except BaseException:
        # Interrupted: stop at once. Finished runs are already in place; the rest are simply
        # missing, and the next start of the sweep runs them. The runs going on in this
        # process stop within 0.2 s (their threads must end before the interpreter does: one
        # ended by the interpreter's exit mid-way through the simulator would abort it).
        stop.set()
        if pool is not None:
            for p in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(Exception):
                    p.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
        for th in threads:
            th.join(timeout=5)
        raise
    if pool is not None:
        pool.shutdown(wait=True)


def _run_dask(
    todo: list[Task],
    address: str,
    out: str,
    jobs: int,
    on_done: Callable[[Task, Outcome], None],
    arg: str = "--dask",
) -> None:
    """Runs ``todo`` on a Dask cluster: a scheduler at ``address``, or (``local``) a
    LocalCluster of ``jobs`` worker processes of this machine. A local cluster's runs simulate,
    and its workers keep their scratch space, in hidden temporary folders inside ``out/runs/``
    (as :func:`_run_local`'s do), so what a sweep killed with SIGKILL leaves behind goes when
    the sweep next starts (``_clean_partial``), not into the system's temporary folder; a
    remote scheduler's workers may not see ``out``, so they simulate in their own. Errors name
    the address as ``arg`` gave it (:func:`dask_named`)."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise AqmlabError(
            f"{dask_named(address, arg)}: needs Dask's distributed scheduler: "
            "pip install 'aqmlab[dask]' "
            "(or pip install 'dask[distributed]')"
        ) from None
    import logging

    import dask

    with contextlib.ExitStack() as stack:  # undone in reverse: client, cluster, config, scratch
        work_dir = None
        if address == "local":
            # Absolute: the workers' own working folder may differ.
            work_dir = os.path.abspath(_runs_dir(out))
            scratch = tempfile.mkdtemp(prefix=".tmp-dask-", dir=work_dir)
            stack.callback(shutil.rmtree, scratch, ignore_errors=True)
            # The scheduler's and each nanny's scratch space too (Dask's default is a
            # dask-scratch-space in the system's temporary folder, left there even after a
            # clean exit); the setting is this sweep's only.
            stack.enter_context(dask.config.set({"temporary-directory": scratch}))
            cluster = LocalCluster(
                n_workers=max(1, jobs),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
                local_directory=scratch,
            )
            stack.callback(cluster.close)
            client = Client(cluster)
        else:
            try:
                client = Client(address, timeout="10s")
            except (OSError, ValueError, TypeError) as e:
                raise AqmlabError(
                    f"{dask_named(address, arg)}: cannot reach the scheduler ({e})"
                ) from None
        stack.callback(client.close)
        futures = {
            client.submit(execute, t, work_dir, key=f"aqmlab-run-{t.key}-{t.index}", pure=False): t
            for t in todo
        }
        for fut in as_completed(futures):
            t = futures[fut]
            try:
                outcome = fut.result()
            except Exception as e:  # noqa: BLE001 - a worker that died mid-run
                outcome = Outcome(t.key, None, f"worker failed: {type(e).__name__}: {e}", 0.0)
            on_done(t, outcome)


#: The schemes of a Dask scheduler's address (Dask's communication back ends).
DASK_SCHEMES = ("tcp", "tls", "ucx", "ws", "wss")


def dask_named(address: str, arg: str = "--dask") -> str:
    """The Dask address ``address`` as an error names it: as the argument ``arg`` that gave it,
    the command line's ``--dask ADDRESS`` or the API's ``dask='ADDRESS'`` (``arg="dask="``)."""
    return f"{arg}{address!r}" if arg.endswith("=") else f"{arg} {address}"


def check_dask_address(address: str, arg: str = "--dask") -> None:
    """``local``, or a scheduler's address ``SCHEME://HOST:PORT`` (``HOST:PORT`` is TCP, as
    Dask reads it): anything else is refused before the sweep starts, naming the address as
    ``arg`` gave it (:func:`dask_named`)."""
    from urllib.parse import urlsplit

    if address == "local":
        return
    u = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        port = u.port
    except ValueError:
        port = None
    if (
        u.scheme not in DASK_SCHEMES
        or not u.hostname
        or not port
        or u.path not in ("", "/")
        or u.query
        or u.fragment
    ):
        raise AqmlabError(
            f"{dask_named(address, arg)}: expected 'local' or a scheduler's address "
            "SCHEME://HOST:PORT "
            f"(SCHEME one of {', '.join(DASK_SCHEMES)}), like tcp://10.0.0.1:8786"
        )


def run_sweep(
    spec: SweepSpec,
    out: str,
    *,
    jobs: int | None = None,
    executor: str = "process",
    dask: str | None = None,
    progress: bool | None = None,
    command: str | None = None,
    dask_arg: str = "--dask",
) -> SweepResult:
    """Run every point × seed of ``spec`` not yet in ``out`` and write the tables. Errors about
    the ``dask`` address name it as ``dask_arg`` gave it (:func:`dask_named`: ``--dask`` for
    the command line, ``dask=`` for :func:`sweep`)."""
    from aqmlab.outdir import check_out

    t_start = time.monotonic()
    check_out(out)
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise AqmlabError(f"jobs: expected at least 1, got {jobs}")
    if executor not in ("process", "thread"):
        raise AqmlabError(f"executor: expected 'process' or 'thread', got {executor!r}")
    if dask is not None:
        check_dask_address(dask, dask_arg)
    # Every input is checked (every point loaded) before the folder is made or touched.
    tasks = plan(spec)
    folder = SweepFolder(out)
    try:
        return _run_planned(
            spec, tasks, out, t_start, jobs, executor, dask, progress, command, dask_arg
        )
    except BaseException:
        folder.remove_if_unused()
        raise
    finally:
        folder.release()


def _run_planned(
    spec: SweepSpec,
    tasks: list[Task],
    out: str,
    t_start: float,
    jobs: int,
    executor: str,
    dask: str | None,
    progress: bool | None,
    command: str | None,
    dask_arg: str,
) -> SweepResult:
    """:func:`run_sweep` once the sweep's folder is ready and locked."""
    # Two points that resolve to the same scenario and seed are one run.
    unique: dict[str, Task] = {}
    for t in tasks:
        if t.error is None:
            unique.setdefault(t.key, t)
    cached = {k for k in unique if _cached(out, k, spec.reduce is not None)}
    todo = [t for k, t in unique.items() if k not in cached]
    errors: dict[str, str] = {}
    show = sys.stderr.isatty() if progress is None else progress
    bar = Progress(len(unique), len(cached), show)
    bar.draw()

    def on_done(task: Task, outcome: Outcome) -> None:
        if outcome.error is None:
            _store(out, task, outcome)
        else:
            errors[task.key] = outcome.error
        bar.tick(outcome.error is not None)

    t_runs = time.monotonic()
    try:
        if dask:
            _run_dask(todo, dask, out, jobs, on_done, dask_arg)
        else:
            _run_local(todo, out, jobs, executor, on_done)
    finally:
        bar.close()
    t_tables = time.monotonic()
    res = _tables(spec, tasks, out, errors)
    # Where the wall time went (bench/sweep_bench.py reads it): the runs' phase is what more
    # cores shorten; planning and the tables are the same for any number of workers.
    # Rows taken from the cache (a point that failed to load is no cached run).
    n_cached = sum(t.error is None and t.key in cached for t in tasks)
    timing = {
        "workers": "dask" if dask else executor,
        "jobs": jobs,
        "simulated": len(todo),
        "cached": n_cached,
        "plan_s": round(t_runs - t_start, 3),
        "runs_s": round(t_tables - t_runs, 3),
        "tables_s": round(time.monotonic() - t_tables, 3),
    }
    _write_manifest(out, spec, tasks, errors, command, timing)
    res.ran, res.cached = len(todo), n_cached
    return res


def _tables(spec: SweepSpec, tasks: list[Task], out: str, errors: dict[str, str]) -> SweepResult:
    """Builds and writes the results and summary tables: without pandas
    (:mod:`aqmlab.sweeptable`), unless a column holds what only pandas models (a metric mixing
    text and numbers), where pandas builds and pyarrow writes them as before."""
    from aqmlab import sweeptable as st
    from aqmlab.metrics import is_zero_filled

    rows = _rows(spec, tasks, out, errors)
    failed = sum(r["error"] is not None for r in rows)
    try:
        table = st.results_table(spec.columns, rows, is_zero_filled)
        summary = st.summarize(table, spec.columns)
    except st.Unmodelled:
        from aqmlab.stats import summarize

        results = results_frame(spec, rows)
        summary = summarize(results, spec.columns)
        write_frames(out, results, summary)
        return SweepResult(results, summary, out, 0, 0, failed, columns=spec.columns)
    st.put(out, "results.parquet", lambda p: st.write_parquet(p, table))
    st.put(out, "results.csv", lambda p: st.write_csv(p, table))
    st.put(out, "summary.csv", lambda p: st.write_csv(p, summary))
    return SweepResult(
        None, None, out, 0, 0, failed, table=table, summary_table=summary, columns=spec.columns
    )


def _rows(
    spec: SweepSpec, tasks: list[Task], out: str, errors: dict[str, str]
) -> list[dict[str, Any]]:
    """Each run's row of the results table: its point, seed, key, error and metrics."""
    from aqmlab.metrics import flatten
    from aqmlab.results import Run

    rows = []
    for t in tasks:
        row: dict[str, Any] = {c: _cell(t.point[c]) for c in spec.columns}
        row["seed"] = t.seed
        row["run"] = t.key or None
        row["error"] = t.error or errors.get(t.key)
        if row["error"] is None:
            row.update(flatten(Run(os.path.join(_runs_dir(out), t.key)).summary))
        rows.append(row)
    return rows


def _cell(v: Any) -> Any:
    """An axis value as a table cell: lists (e.g. a schedule) as their JSON text."""
    return json.dumps(v) if isinstance(v, (list, dict)) else v


def _write_manifest(
    out: str,
    spec: SweepSpec,
    tasks: list[Task],
    errors: dict[str, str],
    command: str | None,
    timing: dict[str, Any],
) -> None:
    from aqmlab import __version__, _core

    manifest = {
        "format_version": 1,
        "aqmlab_version": __version__,
        "build": getattr(_core, "BUILD", "unknown"),
        "source_hash": getattr(_core, "SOURCE_HASH", "unknown"),
        "command": command,
        "scenario": spec.scenario,
        "axes": [
            {"keys": a.keys, "values": [list(v) for v in a.values], "cases": a.cases}
            for a in spec.axes
        ],
        "columns": spec.columns,
        "set": {k: str(v) for k, v in spec.sets.items()},
        "unset": spec.unset,
        "seeds": spec.seeds,
        "timing": timing,
        "runs": [
            {
                "point": t.point,
                "seed": t.seed,
                "run": t.key or None,
                "error": t.error or errors.get(t.key),
            }
            for t in tasks
        ],
    }
    tmp = os.path.join(out, ".sweep.json.partial")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2, default=str)
            f.write("\n")
        os.replace(tmp, os.path.join(out, "sweep.json"))
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


# --- the Python API -----------------------------------------------------------------------------


def sweep(
    scenario: str | os.PathLike[str],
    vary: dict[str, Iterable[Any]] | None = None,
    *,
    qdisc: dict[str, Iterable[str]] | None = None,
    zip: Sequence[dict[str, Iterable[Any]]] | None = None,  # noqa: A002 - mirrors [[zip]]
    cases: dict[str, dict[str, Any]] | None = None,
    set: dict[str, Any] | None = None,  # noqa: A002 - mirrors --set
    unset: Sequence[str] | None = None,
    seeds: Iterable[int] | str | None = None,
    jobs: int | None = None,
    executor: str = "process",
    dask: str | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
) -> Any:
    """Run ``scenario`` (a path) at every combination of the ``vary`` values (``{key:
    [values]}``, keys as ``set`` takes them), the ``qdisc`` swaps (``{link: [kinds]}``) and
    the ``zip`` groups (keys whose i-th values go together) and the named ``cases`` (``{label:
    {key: value, "qdisc:LINK": kind}}``, one axis whose column is ``case``), for each of
    ``seeds``, with the ``set`` values fixed and the ``unset`` keys removed at every point;
    return the results DataFrame (one row per run; :func:`aqmlab.stats.summarize` gives the
    statistics over seeds).

    ``jobs`` worker processes (default: every core; ``executor="thread"`` for threads of this
    process), or a Dask cluster (``dask="local"`` or a scheduler's address). Worker processes
    import the calling script as ``multiprocessing`` does: call this from a script's ``if
    __name__ == "__main__":`` block (or use ``executor="thread"``). With ``out`` the
    runs and tables are kept there and reused by the next call; without, they go to a
    temporary folder."""
    from aqmlab.sweepspec import _zip_axis, listed, parse_seeds

    axes = [Axis([k], [(v,) for v in listed(vs, f"vary: {k}")]) for k, vs in (vary or {}).items()]
    axes += [
        Axis([QDISC_PREFIX + k], [(v,) for v in listed(vs, f"qdisc: {k}")])
        for k, vs in (qdisc or {}).items()
    ]
    axes += [
        _zip_axis({k: listed(v, f"zip: {k}") for k, v in g.items()}, "zip") for g in (zip or [])
    ]
    if cases:
        axes.append(Axis.of_cases(cases))
    if seeds is not None and not isinstance(seeds, str):
        seeds = list(seeds)
    spec = SweepSpec(
        os.fspath(scenario),
        axes,
        dict(set or {}),
        None if seeds is None else parse_seeds(seeds, "seeds"),
        unset=list(unset or []),
    )
    spec.check()
    with contextlib.ExitStack() as stack:
        folder = (
            os.fspath(out)
            if out is not None
            else stack.enter_context(tempfile.TemporaryDirectory(prefix="aqmlab-sweep-"))
        )
        res = run_sweep(
            spec,
            folder,
            jobs=jobs,
            executor=executor,
            dask=dask,
            progress=progress,
            dask_arg="dask=",
        )
    return res.results


__all__ = [
    "SweepResult",
    "Task",
    "execute",
    "plan",
    "reducer_identity",
    "run_key",
    "run_sweep",
    "sweep",
]
