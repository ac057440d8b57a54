#!/usr/bin/env python3
"""The chat page in a real browser: starts `tessera serve` with a small
model, has headless Chromium load the page with two messages to send in
turn (?q=...&q=...), waits (through the DevTools protocol on a pipe) until
the page says it is done, and checks its DOM: both answers, streamed in,
equal the greedy answers of the same conversation made through the API (the
second turn carries the first exchange: the page keeps the conversation),
and the token count and speed are shown. Exit 77 (skipped) without chromium
or the model. python3 stdlib only."""

import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

from server_process import SKIP, Server

MAX_TOKENS = 24


class DevTools:
    """Chromium's DevTools protocol over --remote-debugging-pipe: JSON
    messages ended by a NUL byte, Chromium reading fd 3 and writing fd 4."""

    def __init__(self, browser, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                      f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
                                     pass_fds=(3, 4), preexec_fn=fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0

    def call(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = deadline - time.time()
            if left <= 0 or not select.select([self.from_chrome], [], [], left)[0]:
                raise TimeoutError(f"chromium did not answer {method}")
            data = os.read(self.from_chrome, 1 << 16)
            if not data:
                raise RuntimeError("chromium closed the pipe")
            self.buffer += data

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--model", required=True)
    args = ap.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print("skipped: chromium is not installed (apt-get install chromium)")
        return SKIP
    server = Server(args.tessera, args.model)
    try:
        messages = ["Once upon a time", "What did the cat do?"]
        # The same conversation through the API, greedy, as the page sends it.
        conversation, expected = [], []
        for m in messages:
            conversation.append({"role": "user", "content": m})
            status, out = server.json("POST", "/v1/chat/completions",
                                      {"messages": conversation, "max_tokens": MAX_TOKENS, "temperature": 0})
            assert status == 200, out
            answer = out["choices"][0]["message"]["content"]
            conversation.append({"role": "assistant", "content": answer})
            expected.append((answer, out["usage"]["completion_tokens"]))

        query = urllib.parse.urlencode([("q", m) for m in messages] + [("max_tokens", MAX_TOKENS), ("temperature", 0)])
        url = f"http://127.0.0.1:{server.port}/?{query}"
        with tempfile.TemporaryDirectory() as profile:
            devtools = DevTools(browser, profile)
            try:
                target = devtools.call("Target.createTarget", {"url": url})["targetId"]
                session = devtools.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

                def evaluate(expression):
                    return devtools.call("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                                         session)["result"].get("value")

                deadline = time.time() + 120
                state = None
                while time.time() < deadline:
                    state = evaluate("document.body && document.body.dataset.state + ':' + "
                                     "document.querySelectorAll('.msg.assistant').length")
                    if state in (f"done:{len(messages)}", f"error:{len(messages)}") or (state or "").startswith("error"):
                        break
                    time.sleep(0.1)
                page = evaluate("JSON.stringify({users: [...document.querySelectorAll('.msg.user')].map(e => e.textContent),"
                                " answers: [...document.querySelectorAll('.msg.assistant')].map(e => e.textContent),"
                                " stats: document.getElementById('stats').textContent})")
            finally:
                devtools.close()
        page = json.loads(page)
        assert state == f"done:{len(messages)}", f"the page did not finish: {state}: {page}"
        assert page["users"] == messages, page
        answers = page["answers"]
        assert answers == [e[0] for e in expected], f"the page shows {answers}, the API answered {expected}"
        stats = page["stats"]
        assert stats.startswith(f"{expected[-1][1]} tokens, ") and "tokens/s" in stats, f"stats: {stats}"
        print(f"ok: the page streamed {len(answers)} answers ({[e[1] for e in expected]} tokens) equal to the API's")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
