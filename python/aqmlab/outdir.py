"""A run's output folder, written atomically.

Every file of a run (the summary, the resolved scenario, the series, the comparison arms'
subfolders) is written into a hidden staging folder beside the destination,
``.NAME.partial-XXXX``; :meth:`OutputFolder.commit` then puts the whole tree in place with two
renames (the earlier run aside, the new one in), so the destination holds either the earlier
run, untouched, or the new one, complete: never a mix (no stale ``links.parquet`` or comparison
arm of an older run beside new files). A run that stops early (an error, Ctrl-C, SIGTERM,
SIGHUP) removes its staging folder with :meth:`OutputFolder.abort`.

Two writers of the same folder at once (two runs, two sweeps, a run and a sweep): the second
refuses at the start, naming the folder, what holds it and its pid (an advisory lock on
``.NAME.lock`` beside the folder, :func:`lock_beside`, whoever writes it). The lock is taken
before the folder is checked, and held until the run's files are in place.

A folder that holds anything but an earlier run's files is never replaced: the run refuses
rather than delete files it did not write.

The path check (:func:`check_out`), the lock (:func:`lock_beside`) and the refusal
(:func:`foreign_files`) are those of a sweep's folder too (:mod:`aqmlab.sweep`), which is
written into rather than replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock, the staging still applies
    fcntl = None  # type: ignore[assignment]

#: The names a run writes at the top of its folder (the series in either format).
RUN_FILES = {
    "summary.json",
    "scenario.resolved.toml",
    *(
        f"{t}.{ext}"
        for t in ("links", "flows", "packets", "drops", "states", "flow_states")
        for ext in ("parquet", "csv")
    ),
}


class OutputError(OSError):
    """The output folder cannot be used (busy, or holding files that are not a run's)."""


def _is_run_folder(path: str) -> bool:
    """True when every entry of ``path`` is a file a run writes, or a comparison arm's folder
    (``LINK=KIND``) that is itself one."""
    with os.scandir(path) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if "=" not in entry.name or not _is_run_folder(entry.path):
                    return False
            elif entry.name not in RUN_FILES and not entry.name.endswith(".partial"):
                return False
    return True


def foreign_files(folder: str, what: str, action: str) -> OutputError:
    """The error of an output folder holding files an aqmlab ``what`` (run, sweep) did not
    write: it will not ``action`` (replace it, write into it)."""
    return OutputError(
        errno.EEXIST,
        f"holds files that are not an aqmlab {what}'s, so a {what} will not {action}: "
        "choose another output folder, or empty it",
        folder,
    )


def check_out(out: str | os.PathLike[str]) -> None:
    """Refuses an empty output path: ``abspath("")`` is the current folder, which a run must
    never replace nor a sweep write its tables into."""
    if not os.fspath(out):
        raise ValueError("out: expected a folder path, got an empty string")


def final_path(out: str | os.PathLike[str]) -> str:
    """The absolute folder ``out`` stands for (a symbolic link to a folder stands for that
    folder), its parent made."""
    check_out(out)
    final = os.path.realpath(os.path.abspath(os.fspath(out)))
    parent, base = os.path.split(final)
    if not base:
        raise OutputError(errno.EINVAL, "expected a folder name", os.fspath(out))
    os.makedirs(parent, exist_ok=True)
    return final


def lock_beside(final: str, shown: str, what: str) -> FolderLock:
    """The lock on the folder ``final`` (absolute, as :func:`final_path` gives), taken by an
    aqmlab ``what`` (run, sweep): ``.NAME.lock`` beside it, the one lock of that folder whoever
    writes it. Errors name the folder as ``shown``."""
    parent, base = os.path.split(final)
    return FolderLock(os.path.join(parent, f".{base}.lock"), shown, what)


class FolderLock:
    """An advisory lock (``flock``) on the file ``path``, standing for the output folder
    ``folder`` that an aqmlab ``what`` (run, sweep) writes: taken at once or refused with
    :class:`OutputError` naming the holder's pid. The kernel releases it when its process ends,
    however it ends (a killed process leaves no stale lock). No-op where ``fcntl`` is missing."""

    def __init__(self, path: str, folder: str, what: str) -> None:
        self.path = path
        self._file = self._acquire(folder, what)

    def _acquire(self, folder: str, what: str):  # noqa: ANN202 - a file object or None
        if fcntl is None:
            return None
        while True:
            f = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.seek(0)
                holder = f.read().strip() or "process"
                f.close()
                raise OutputError(
                    errno.EBUSY,
                    f"another aqmlab {holder} is writing this folder: wait for it to "
                    "finish, or choose another output folder",
                    folder,
                ) from None
            # The lock file may have been removed by the previous holder between our open and
            # our lock: then we hold a lock on a file nobody else sees. Retry on the new one.
            try:
                same = os.path.samestat(os.fstat(f.fileno()), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                f.seek(0)
                f.truncate()
                f.write(f"{what} (pid {os.getpid()})")
                f.flush()
                return f
            f.close()

    def release(self) -> None:
        if self._file is not None:
            # Removed while held, so no other process can be locking this same file.
            with contextlib.suppress(OSError):
                os.remove(self.path)
            self._file.close()
            self._file = None


class OutputFolder:
    """Stages a run's files for ``final`` and puts them in place at the end."""

    def __init__(self, final: str | os.PathLike[str]) -> None:
        # A symbolic link to a folder stands for that folder: it is replaced, the link kept.
        self.final = final_path(final)
        parent, base = os.path.split(self.final)
        # Locked first, then checked: a sweep or run writing the folder is named as such.
        self._lock: FolderLock | None = lock_beside(self.final, self.final, "run")
        self.lock_path = self._lock.path
        try:
            self._check_final()
            # Holding the lock, no other run is writing this folder: a staging or old folder of
            # its name is what a killed run (SIGKILL, a lost machine) left behind.
            for entry in os.scandir(parent):
                if entry.name.startswith((f".{base}.partial-", f".{base}.old-")):
                    shutil.rmtree(entry.path, ignore_errors=True)
            self.stage = tempfile.mkdtemp(prefix=f".{base}.partial-", dir=parent)
            # mkdtemp makes it private (0700); the run's folder gets the usual mode.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self.stage, 0o777 & ~umask)
        except BaseException:
            self._release()
            raise

    def _check_final(self) -> None:
        """Refuses a ``final`` that is no folder or holds files a run did not write."""
        if os.path.exists(self.final):
            if not os.path.isdir(self.final):
                raise OutputError(errno.ENOTDIR, "exists and is not a folder", self.final)
            if not _is_run_folder(self.final):
                raise foreign_files(self.final, "run", "replace it")

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def path(self, *parts: str) -> str:
        """The staging path of ``parts`` (``"summary.json"``, an arm's ``"LINK=KIND"``)."""
        return os.path.join(self.stage, *parts)

    def commit(self) -> None:
        """Replaces ``final`` (and everything in it) with the staged tree."""
        old = None
        try:
            # Checked again before the earlier folder is moved aside and deleted: what came
            # there since the start without taking the lock (another program, say) is kept.
            self._check_final()
            if os.path.exists(self.final):
                old = tempfile.mkdtemp(
                    prefix=f".{os.path.basename(self.final)}.old-", dir=os.path.dirname(self.final)
                )
                os.rmdir(old)
                _rename(self.final, old)
            try:
                _rename(self.stage, self.final)
            except BaseException:
                if old is not None:  # put the earlier run back
                    with contextlib.suppress(OSError):
                        os.rename(old, self.final)
                    old = None
                raise
        except BaseException:
            self.abort()
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        self._release()

    def abort(self) -> None:
        """Removes the staged files; ``final`` keeps what it held."""
        shutil.rmtree(self.stage, ignore_errors=True)
        self._release()


def _rename(src: str, dst: str) -> None:
    try:
        os.rename(src, dst)
    except OSError as e:
        raise OSError(e.errno, f"cannot rename {src} to it: {e.strerror or e}", dst) from None
