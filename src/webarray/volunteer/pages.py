"""Worker pages in headless Chromium, driven from Python (``pages.mjs`` through Node): what
``python -m webarray.volunteer join URL --workers K`` opens, and what the tests and the
benchmark use to join, watch and close pages."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable

from ..browser import assets


class HeadlessWorkers:
    """One Chromium with a tab per worker page of the server at ``base``. ``status[name]``
    is the page's latest state (what its page shows); ``events`` every event, in order."""

    def __init__(self, base: str, *, insecure: bool = False, webgpu: bool = True,
                 on_event: Callable[[dict[str, Any]], None] | None = None):
        root = assets.repo_root()
        cfg = {"root": str(root), "chromium": assets.chromium(), "base": base.rstrip("/"),
               "insecure": insecure, "webgpu": webgpu}
        assets.node_modules(root)
        assets.js_library(root)
        self.status: dict[str, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self._queue: queue.Queue = queue.Queue()
        self._on_event = on_event
        self._proc = subprocess.Popen(
            [assets.node(), str(Path(__file__).with_name("pages.mjs")), json.dumps(cfg)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.wait_for(lambda e: e["event"] == "ready" or (e["event"] == "error" and "name" not in e), 90)
        if not any(e["event"] == "ready" for e in self.events):
            raise assets.SetupError(f"the headless worker pages did not start: {self.events}")

    def _read(self) -> None:
        for line in self._proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event["event"] == "status":
                self.status[event["name"]] = event["status"]
            self.events.append(event)
            self._queue.put(event)
            if self._on_event:
                self._on_event(event)
        self._queue.put({"event": "exit"})

    def _send(self, **command: Any) -> None:
        self._proc.stdin.write(json.dumps(command) + "\n")
        self._proc.stdin.flush()

    def open(self, name: str, query: str = "") -> None:
        """A worker page named ``name`` joins; ``query`` adds URL parameters (release=0)."""
        self._send(cmd="open", name=name, query=query)

    def close(self, name: str) -> None:
        """Closes the page's tab (its pagehide handler runs)."""
        self._send(cmd="close", name=name)

    def click(self, name: str, selector: str) -> None:
        self._send(cmd="click", name=name, selector=selector)

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any] | None:
        """The first event from now on for which predicate holds; None after timeout."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = self._queue.get(timeout=left)
            except queue.Empty:
                return None
            if predicate(event):
                return event
            if event["event"] == "exit":
                return None
        return None

    def stop(self) -> None:
        if self._proc.poll() is None:
            try:
                self._send(cmd="quit")
                self._proc.wait(timeout=20)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait()

    def __enter__(self) -> "HeadlessWorkers":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
