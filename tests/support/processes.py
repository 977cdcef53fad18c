"""Finding a test's subprocesses: ``referee worker`` runs its Celery process as a child, and
Celery its pool processes as that one's children."""

from __future__ import annotations

from pathlib import Path


def child_pids(parent: int) -> set[int]:
    """The pids of ``parent``'s children (Linux: read from ``/proc``)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{parent}\n" in status:
                found.add(int(entry.name))
    return found


def grandchild_pids(parent: int) -> set[int]:
    """The children of ``parent``'s children: the pool processes of a supervised worker."""
    return {pid for child in child_pids(parent) for pid in child_pids(child)}
