"""Where chunks are played: in this process, in local worker processes, or on a Dask
cluster, with a bounded number of chunks in flight so memory stays flat."""
from __future__ import annotations

import gc
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
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
    with worker_pool(jobs, tune_gc=True) as executor:
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


#: Garbage-collector thresholds while playing: the models allocate many small objects,
#: which the default (700, 10, 10) rescans often (the cost: docs/benchmarks.md).
GC_THRESHOLDS = (10_000, 10, 10)


#: How often (seconds) a worker checks that the process that started it is alive.
PARENT_CHECK_SECONDS = 1.0


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers the parent stops: on Ctrl-C (a ``KeyboardInterrupt``
    leaving a ``with`` block, or :meth:`stop`), and when a generator holding the pool is
    closed mid-way (its consumer stopped, e.g. on that Ctrl-C), the queued work is
    cancelled and the workers are terminated at once, instead of waiting for the work
    they hold. The workers ignore SIGINT themselves (:func:`_start_worker`), so a Ctrl-C
    at a terminal, which reaches every process of the group, prints nothing from them."""

    def submit(self, fn, /, *args, **kwargs):
        """As the pool's, with SIGINT blocked in this thread meanwhile: the worker
        processes a submission starts inherit the block, so a Ctrl-C while they start up
        (importing for a second or more, with ``spawn``) cannot interrupt them before
        :func:`_start_worker` ignores it. A SIGINT meanwhile still reaches this process
        (through another thread, or when the block ends)."""
        with _sigint_blocked():
            return super().submit(fn, *args, **kwargs)

    def stop(self) -> None:
        """Cancel the queued work and end the workers now (what they were doing is lost;
        the parent keeps only finished results)."""
        processes = list((self._processes or {}).values())
        self.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join()

    def __exit__(self, kind, error, trace) -> bool:
        if kind is not None and issubclass(kind, KeyboardInterrupt | GeneratorExit):
            self.stop()
            return False
        return super().__exit__(kind, error, trace)


def worker_pool(workers: int, *, tune_gc: bool = False, context: str | None = None
                ) -> WorkerPool:
    """A :class:`WorkerPool` of ``workers`` local processes that end when this process
    dies: each runs a watchdog thread that checks its parent every
    :data:`PARENT_CHECK_SECONDS`, so a killed command (``nothanks run``, ``infer``, ...)
    leaves no orphans, and each ignores SIGINT (the parent stops them on Ctrl-C).
    ``tune_gc``: the players' collector thresholds (:data:`GC_THRESHOLDS`) in the workers.
    ``context``: how the processes start (``"spawn"``, ``"forkserver"``; default: the
    platform's), e.g. ``spawn`` when this process runs threads that must not be forked
    (JAX: the self-play trainer asks for it)."""
    import multiprocessing
    return WorkerPool(max_workers=workers, initializer=_start_worker,
                      initargs=(os.getpid(), tune_gc),
                      mp_context=multiprocessing.get_context(context))


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Block SIGINT in this thread for the block (processes it starts inherit it)."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _start_worker(parent: int, tune_gc: bool) -> None:
    """Initializer of :func:`worker_pool`'s processes: Ctrl-C is the parent's to handle
    (ignored here, then unblocked: the process started with it blocked)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
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
