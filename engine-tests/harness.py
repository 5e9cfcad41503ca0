"""Raw-pipe UCI harness shared by the black-box tests."""
from __future__ import annotations

import queue
import subprocess
import threading
import time

import pytest


class Uci:
    """The engine on raw pipes. A reader thread stamps every output line with
    time.monotonic(); `expect` waits for a line and returns what came first."""

    def __init__(self, cmd: list[str]):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.out: queue.Queue = queue.Queue()
        self.seen: list[str] = []          # every stdout line so far, for failure messages
        self.err = bytearray()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        for raw in self.proc.stdout:
            self.out.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\r\n")))
        self.out.put((time.monotonic(), None))

    def _read_stderr(self) -> None:
        for raw in self.proc.stderr:
            self.err += raw

    def send(self, *lines: str | bytes) -> float:
        """Writes the lines; returns the time.monotonic() just before."""
        data = b"".join((l if isinstance(l, bytes) else l.encode()) + b"\n" for l in lines)
        t = time.monotonic()
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pytest.fail(f"engine gone while sending {lines[0][:80]!r}{self.context()}")
        return t

    def context(self) -> str:
        tail = "\n    ".join(l[:300] for l in self.seen[-25:])
        code = self.proc.poll()
        return (f"\n  exit code: {code}" if code is not None else "") + \
               f"\n  last output:\n    {tail}\n  stderr: {bytes(self.err[-2000:]).decode('utf-8', 'replace')}"

    def expect(self, pred, timeout: float, what: str) -> list[tuple[float, str]]:
        """Lines up to and including the first for which pred(line) holds."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                t, line = self.out.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no {what} within {timeout}s{self.context()}")
            if line is None:
                self.out.put((t, None))
                pytest.fail(f"engine output ended while waiting for {what}{self.context()}")
            self.seen.append(line)
            got.append((t, line))
            if pred(line):
                return got

    def lines_until(self, pred, timeout: float, what: str) -> list[str]:
        return [l for _, l in self.expect(pred, timeout, what)]

    def drain(self) -> list[str]:
        got = []
        while True:
            try:
                t, line = self.out.get_nowait()
            except queue.Empty:
                return got
            if line is None:
                self.out.put((t, None))
                return got
            self.seen.append(line)
            got.append(line)

    def handshake(self) -> list[str]:
        self.send("uci")
        return self.lines_until(lambda l: l.strip() == "uciok", 10, "uciok")

    def ready(self, timeout: float = 10) -> list[str]:
        """Sends isready; the lines before readyok."""
        self.send("isready")
        return self.lines_until(lambda l: l.strip() == "readyok", timeout, "readyok")[:-1]

    def bestmove(self, timeout: float, what: str = "bestmove") -> tuple[list[str], float]:
        """(all lines up to and including bestmove, its arrival time)."""
        got = self.expect(lambda l: l.startswith("bestmove"), timeout, what)
        return [l for _, l in got], got[-1][0]

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.flush()
            except OSError:
                pass
            if self.wait_exit(5) is None:
                self.proc.kill()
                self.proc.wait()
                return -999
        return self.proc.returncode
