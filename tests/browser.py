"""Debian's headless Chromium driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: JSON messages, each ended by a NUL, Chromium
reading fd 3 and writing fd 4), so a test can open a page, type into it,
wait for what a script puts there, see every request the page made and
every script error, and take a screenshot, with no WebSocket library."""

import base64
import fcntl
import json
import os
import queue
import subprocess
import threading
import time

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
         "--remote-debugging-pipe", "--window-size=1280,900")


class Browser:
    def __init__(self, profile):
        to_chromium, self._writer = os.pipe()
        self._reader, from_chromium = os.pipe()

        def descriptors():  # in the child: its fd 3 reads what we send, its fd 4 writes what it answers
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chromium, from_chromium)]  # (either may be 3)
            for fd, wanted in zip(high, (3, 4)):
                os.dup2(fd, wanted)  # inheritable, unlike the pipes' own

        self.process = subprocess.Popen(["chromium", *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                        preexec_fn=descriptors, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        close_fds=False)  # (the pipes are close-on-exec; dup2's copies are not)
        os.close(to_chromium)
        os.close(from_chromium)
        self._answers: dict[int, queue.Queue] = {}
        self.events: list[dict] = []
        self._next, self._lock = 0, threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(self._reader, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            pending += chunk
            while b"\0" in pending:
                message, pending = pending.split(b"\0", 1)
                found = json.loads(message)
                if "id" in found:
                    self._answers.setdefault(found["id"], queue.Queue()).put(found)
                else:
                    self.events.append(found)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30):
        with self._lock:
            self._next += 1
            ident = self._next
            self._answers[ident] = queue.Queue()
        message = {"id": ident, "method": method, "params": params or {}, **({"sessionId": session} if session else {})}
        os.write(self._writer, json.dumps(message).encode() + b"\0")
        answer = self._answers[ident].get(timeout=timeout)
        if "error" in answer:
            raise AssertionError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def page(self) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        opened = Page(self, session)
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.send(f"{domain}.enable", session=session)
        return opened

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (AssertionError, queue.Empty, OSError):
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        for fd in (self._writer, self._reader):
            try:
                os.close(fd)
            except OSError:
                pass


class Page:
    def __init__(self, browser: Browser, session: str):
        self.browser, self.session = browser, session

    def _events(self, method: str) -> list[dict]:
        return [e for e in self.browser.events if e.get("sessionId") == self.session and e.get("method") == method]

    def go(self, url: str, timeout: float = 30) -> None:
        loaded = len(self._events("Page.loadEventFired"))
        self.browser.send("Page.navigate", {"url": url}, self.session)
        self.wait(lambda: len(self._events("Page.loadEventFired")) > loaded, timeout, f"{url} to load")

    def js(self, expression: str):
        found = self.browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                       "awaitPromise": True}, self.session)
        if "exceptionDetails" in found:
            raise AssertionError(f"{expression}: {found['exceptionDetails']}")
        return found["result"].get("value")

    def wait(self, check, timeout: float = 10, what: str = "the page") -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if check():
                return
            time.sleep(0.05)
        raise AssertionError(f"waited {timeout} s for {what}")

    def wait_js(self, expression: str, timeout: float = 10) -> None:
        self.wait(lambda: self.js(expression), timeout, expression)

    def type(self, selector: str, typed: str) -> None:
        self.js(f"document.querySelector({json.dumps(selector)}).focus()")
        for character in typed:  # a key at a time, as a person types (each an input event)
            self.browser.send("Input.insertText", {"text": character}, self.session)

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self._events("Network.requestWillBeSent")]

    def errors(self) -> list[str]:
        """What went wrong in the page: a script's exception, a policy's violation, a failed load."""
        said = [str(e["params"]["exceptionDetails"]) for e in self._events("Runtime.exceptionThrown")]
        return said + [e["params"]["entry"]["text"] for e in self._events("Log.entryAdded")
                       if e["params"]["entry"]["level"] == "error"]

    def screenshot(self, path) -> None:
        shot = self.browser.send("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        path.write_bytes(base64.b64decode(shot))
