"""Starts `tessera serve` on a free loopback port for the scripts of this
folder, and stops it with SIGTERM, as a user's Ctrl-C would (python3 stdlib only)."""

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

SKIP = 77  # ctest's SKIP_RETURN_CODE for these scripts


class Server:
    def __init__(self, tessera, model, args=()):
        if not os.path.isfile(model):
            print(f"skipped: model {model} not found (the conformance data)")
            sys.exit(SKIP)
        self.proc = subprocess.Popen([tessera, "serve", "-m", model, "--port", "0", "-t", "1", *args],
                                     stderr=subprocess.PIPE, text=True)
        self.log = []
        self.port = None
        deadline = time.time() + 60
        for line in self.proc.stderr:
            self.log.append(line)
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", line)
            if m:
                self.port = int(m.group(1))
                break
            if time.time() > deadline:
                break
        if self.port is None:
            self.proc.kill()
            raise SystemExit("tessera serve did not start:\n" + "".join(self.log))
        # Keep reading stderr so that the server never blocks on a full pipe.
        threading.Thread(target=lambda: self.log.extend(self.proc.stderr), daemon=True).start()

    def request(self, method, path, body=None, timeout=120):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
            conn.request(method, path, data, {"Content-Type": "application/json"})
            resp = conn.getresponse()
            return resp.status, resp.read().decode("utf-8", "replace")
        finally:
            conn.close()

    def json(self, method, path, body=None):
        status, text = self.request(method, path, body)
        return status, json.loads(text)

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        """SIGTERM; the server must exit cleanly (code 0) within 20 s."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise SystemExit("tessera serve did not stop within 20 s of SIGTERM")
        if code != 0:
            raise SystemExit(f"tessera serve exited with {code}:\n" + "".join(self.log))
