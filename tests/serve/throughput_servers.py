"""Starts the servers tests/serve/throughput.py measures, one per
concurrency, on a free loopback port, and stops them (python3 stdlib only):
`tessera serve` or llama.cpp's llama-server, the binary's path a parameter.
Nothing here builds or ships llama.cpp; it only runs a binary it is given."""

import http.client
import os
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """kind "tessera" or "llama-server"; ctx_per_seq is each stream's context."""

    def __init__(self, kind, binary, model, parallel, threads, ctx_per_seq, log_path):
        self.port = free_port()
        if kind == "tessera":
            args = [binary, "serve", "-m", model, "--port", str(self.port), "--parallel", str(parallel),
                    "--ctx", str(ctx_per_seq), "-t", str(threads)]
        elif kind == "llama-server":
            # -c is the context of all slots together there.
            args = [binary, "-m", model, "--host", "127.0.0.1", "--port", str(self.port), "-np", str(parallel),
                    "-c", str(parallel * ctx_per_seq), "-t", str(threads)]
        else:
            raise ValueError(kind)
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        self._wait_healthy(timeout=180)

    def _wait_healthy(self, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"the server exited with {self.proc.returncode} (log: {self.log.name})")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                conn.request("GET", "/health")
                ok = conn.getresponse().status == 200  # llama-server answers 503 while it loads
                conn.close()
                if ok:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        raise SystemExit(f"the server was not healthy within {timeout} s (log: {self.log.name})")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
