"""Where chunks are played: in this process, in local worker processes, or on a Dask
cluster, with a bounded number of chunks in flight so memory stays flat."""
from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from .design import Design
from .rows import LogContext
from .workers import play_chunk, prepare_to_fork

Chunk = tuple[int, int]


def execute(chunks: Sequence[Chunk], design: Design, context: LogContext, traces: bool,
             jobs: int | None, client, in_flight: int | None
             ) -> Iterator[tuple[Chunk, dict[str, bytes]]]:
    """Yield (chunk, parts) as chunks finish, keeping at most ``in_flight`` submitted."""
    if not chunks:
        return
    if client is not None:
        yield from _execute_dask(chunks, design, context, traces, client, in_flight)
        return
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1:
        with worker_gc():
            for start, stop in chunks:
                yield (start, stop), play_chunk(design, start, stop, context, traces)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, wait
    if multiprocessing.get_start_method() == "fork":
        prepare_to_fork(design)
    limit = in_flight or 2 * jobs
    queue = iter(chunks)
    executor = worker_pool(jobs, tune_gc=True)
    try:
        running = {}
        for chunk in _take(queue, limit):
            running[executor.submit(play_chunk, design, *chunk, context, traces)] = chunk
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                chunk = running.pop(future)
                yield chunk, future.result()
                for nxt in _take(queue, 1):
                    running[executor.submit(play_chunk, design, *nxt, context, traces)] = nxt
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


#: Garbage-collector thresholds while playing: the models allocate many small objects,
#: which the default (700, 10, 10) rescans often (the cost: docs/benchmarks.md).
GC_THRESHOLDS = (10_000, 10, 10)


#: How often (seconds) a worker checks that the process that started it is alive.
PARENT_CHECK_SECONDS = 1.0


def worker_pool(workers: int, *, tune_gc: bool = False, context: str | None = None):
    """A ``ProcessPoolExecutor`` of ``workers`` local processes that end when this process
    dies: each runs a watchdog thread that checks its parent every
    :data:`PARENT_CHECK_SECONDS`, so a killed command (``nothanks run``, ``infer``, ...)
    leaves no orphans. ``tune_gc``: the players' collector thresholds
    (:data:`GC_THRESHOLDS`) in the workers. ``context``: how the processes start
    (``"spawn"``, ``"forkserver"``; default: the platform's), e.g. ``spawn`` when this
    process runs threads that must not be forked (JAX)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    return ProcessPoolExecutor(max_workers=workers, initializer=_start_worker,
                               initargs=(os.getpid(), tune_gc),
                               mp_context=multiprocessing.get_context(context))


def _start_worker(parent: int, tune_gc: bool) -> None:
    """Initializer of :func:`worker_pool`'s processes."""
    if tune_gc:
        gc.set_threshold(*GC_THRESHOLDS)
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True,
                     name="nothanks-parent-watchdog").start()


def _exit_with_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_CHECK_SECONDS)
        if os.getppid() != parent:  # re-parented: the parent is gone
            os._exit(1)


@contextmanager
def worker_gc() -> Iterator[None]:
    """Play in this process with the workers' collector thresholds, then restore them."""
    previous = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _execute_dask(chunks, design, context, traces, client, in_flight):
    """On a connected ``distributed.Client`` (run_design connects to an address first)."""
    from distributed import as_completed
    workers = sum(client.nthreads().values()) or 1
    limit = in_flight or 2 * workers
    queue = iter(chunks)
    [design_future] = client.scatter([design], broadcast=True)

    def submit(chunk):
        return client.submit(play_chunk, design_future, *chunk, context, traces, pure=False)

    futures = {}
    for chunk in _take(queue, limit):
        futures[submit(chunk)] = chunk
    pool = as_completed(list(futures))
    try:
        for future in pool:
            chunk = futures.pop(future)
            yield chunk, future.result()
            future.release()
            for nxt in _take(queue, 1):
                fut = submit(nxt)
                futures[fut] = nxt
                pool.add(fut)
    finally:
        for future in futures:
            future.cancel()


def _take(iterator: Iterator, n: int) -> list:
    out = []
    for item in iterator:
        out.append(item)
        if len(out) == n:
            break
    return out
