"""One lock for webarray's host-side device state, and Ctrl-C that waits for consistent state.

Threads: the executors record work in shared lists (the native executor's dispatches and
uniform arena, the browser's command batch), the buffer pool keeps free lists, handles and
kernel ids are counters, and the lazy graph rewrites its nodes in place. Two threads on one
device without a lock got each other's data in 2-6% of their results. Every executor
command, pool operation and graph entry point therefore holds ``LOCK``, one process-wide
re-entrant lock: webarray's host work is serialised (the GIL serialises it anyway), and the
GPU work of all threads shares the submits. The lock is the whole cost: once per fused
operation, four times per eager one. The per-operation sites (``_graph.execute``,
``BufferPool.acquire``, ``NativeExecutor.dispatch``) call ``LOCK.acquire()`` before a
``try`` rather than ``with LOCK:``, which costs twice as much (0.10 against 0.23 µs on a
2-core VM); they are critical, so no interrupt is raised between the two.

Interrupts: a KeyboardInterrupt raised between two statements of code that records work or
rewrites the graph left arrays that looked computed and were not (10-13 of 60 SIGINTs during
a loop of operations and reads: zeros, or the old contents of a freed array). Functions whose
interruption can do that are marked ``@critical``, which only registers their code objects:
it costs nothing when they run. At import, if Python's own SIGINT handler is installed and
this is the main thread, webarray installs a handler that looks at the interrupted frames.
When the main thread holds ``LOCK`` inside a critical function, or runs a finalizer
(``__del__``, a function marked ``@finalizer`` or a garbage-collector callback, where Python
would print the exception and drop it), it does not raise: a helper thread sends SIGINT again ~1 ms later, until the main
thread is out. Anywhere else it raises KeyboardInterrupt as Python's handler does. Waiting
for a readback is not critical, so a long GPU wait stays interruptible. Where no thread can
be started (Pyodide), a deferred interrupt is raised at the next readback, or as the next
elementwise operation releases the lock (``_core/graph.py``: a loop of operations with no
readback spends most of its time recording them, so most interrupts land there). A
KeyboardInterrupt that still ends where Python drops exceptions (another library's weakref
callback) reaches ``sys.unraisablehook``, which webarray's sends again (pytest installs its
own hook around each test).
"""

from __future__ import annotations

import _thread
import gc
import signal
import sys
import threading
import time

LOCK = threading.RLock()
_owned = LOCK._is_owned  # whether the calling thread holds LOCK (what Condition uses)

_RETRY_S = 0.001  # how soon a deferred interrupt is sent again
_critical: set = set()  # code objects of functions that defer SIGINT while holding LOCK
_finalizers: set = set()  # code objects run as finalizers (exceptions there are dropped)
_STALE_S = 0.1  # a helper that has not sent by then is presumed lost: another is started
_retrying = 0.0  # when the helper thread that will send SIGINT again was started (0: none)
_deferred = False  # no helper thread could be started: ``deliver`` raises it
# what the handler did, for a test's failure message: SIGINTs deferred, helpers started,
# SIGINTs they sent, helpers that could not start
counts = {"deferred": 0, "helpers": 0, "sent": 0, "no_thread": 0}


def critical(func):
    """Mark a function whose interruption could leave half-recorded work: SIGINT waits
    until it has returned (where the main thread holds LOCK in it)."""
    _critical.add(func.__code__)
    return func


def finalizer(func):
    """Mark a function called as a finalizer (a weakref callback): SIGINT waits until it
    has returned, as in ``__del__``."""
    _finalizers.add(func.__code__)
    return func


def _unsafe(frame) -> bool:
    """Whether the main thread, stopped at frame, must not raise KeyboardInterrupt now:
    inside a critical function holding LOCK, or where Python drops exceptions (``__del__``,
    webarray's finalizers, the garbage collector's callbacks: hypothesis installs one, and
    a Ctrl-C that landed in it late in the test suite was lost)."""
    owned = _owned()
    callbacks = {getattr(c, "__code__", None) for c in gc.callbacks} if gc.callbacks else ()
    while frame is not None:
        code = frame.f_code
        if (code in _finalizers or code.co_name == "__del__" or code in callbacks
                or (owned and code in _critical)):
            return True
        frame = frame.f_back
    return False


def _unraisable(info) -> None:
    """sys.unraisablehook: a KeyboardInterrupt raised where Python drops exceptions (a
    weakref callback of another library, say) is sent again instead of lost."""
    if info.exc_type is KeyboardInterrupt and threading.current_thread() is threading.main_thread():
        _ask_again()
        return
    _previous_unraisablehook(info)


def _on_sigint(signum, frame):
    global _deferred
    if _unsafe(frame):
        _ask_again()
        return
    _deferred = False
    signal.default_int_handler(signum, frame)


def _ask_again() -> None:
    """Have SIGINT sent again shortly. Re-arming from the handler itself would run the
    handler again at once, inside itself, so a helper thread does it after a pause. One
    helper at a time, unless the last has not sent within _STALE_S."""
    global _retrying, _deferred
    counts["deferred"] += 1
    now = time.monotonic()
    if _retrying and now - _retrying < _STALE_S:
        return
    _retrying = now
    try:
        _thread.start_new_thread(_send_again, ())
        counts["helpers"] += 1
    except RuntimeError:  # no threads here (Pyodide): the next readback raises it
        counts["no_thread"] += 1
        _retrying = 0.0
        _deferred = True


def _send_again() -> None:
    global _retrying
    time.sleep(_RETRY_S)
    _retrying = 0.0
    counts["sent"] += 1
    if _kill is not None and signal.getsignal(signal.SIGINT) is _on_sigint:
        _kill(_MAIN, signal.SIGINT)  # a real signal also ends a blocking wait of the main thread
    else:
        _thread.interrupt_main()  # whatever handles SIGINT now; nothing if none does


def deliver() -> None:
    """Raise the KeyboardInterrupt that was deferred where no helper thread could send it
    again (call where the main thread may be interrupted)."""
    global _deferred
    if _deferred and threading.current_thread() is threading.main_thread():
        if not _unsafe(sys._getframe(1)):
            _deferred = False
            raise KeyboardInterrupt


_MAIN = threading.main_thread().ident
_kill = getattr(signal, "pthread_kill", None)
_previous_unraisablehook = sys.unraisablehook
if (threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
    signal.signal(signal.SIGINT, _on_sigint)
    sys.unraisablehook = _unraisable
