#!/usr/bin/env python3
"""Load and fault test of `tessera serve` (python3 stdlib only: http.client
and threads). Starts the server (or uses --port of a running one), computes
every greedy or seeded request's answer alone, then runs rounds of --clients
clients at once with mixed prompt lengths and parameters, some streaming,
some hanging up mid-stream, some sending malformed bodies or prompts longer
than the context. Asserts that every completed greedy request equals its lone run
(nothing lost or mixed up between streams), that faults get their 4xx and
nothing gets a 5xx, that /health shows every slot free and nothing queued
at the end, that the server's memory does not grow from one round to the
next, and that it stops cleanly on SIGTERM.

  tests/serve/load_test.py --tessera build/bin/tessera --model MODEL [--clients 64] [--parallel 4]
"""

import argparse
import http.client
import json
import random
import sys
import threading
import time

from server_process import Server

BASE = ["Once upon a time", "The little dog ran", "Tom and Sue went to the park. They saw a big tree",
        "One day, a girl named Lily found a needle in her room. She knew it was difficult to play with it " * 3]
KINDS = ["greedy", "greedy_stream", "seeded", "seeded_stream", "chat", "disconnect", "malformed", "too_long"]
MALFORMED = ['{"prompt": ', '{"prompt": 5}', '{"prompt": "x", "temperature": "warm"}', '[]',
             '{"prompt": "x", "max_tokens": -3}', '{"messages": [{"role": "robot", "content": "hi"}]}',
             '{"prompt": "x", "stop": [1]}', '\x00\xff garbage']


def request_for(i, ctx):
    """The request of client i: (kind, path, body)."""
    kind = KINDS[i % len(KINDS)]
    rng = random.Random(i)
    prompt = BASE[rng.randrange(len(BASE))]
    body = {"prompt": prompt, "max_tokens": rng.choice([4, 16, 48]), "temperature": 0}
    path = "/v1/completions"
    if kind.startswith("seeded"):
        body.update(temperature=0.9, top_k=rng.choice([0, 20]), top_p=0.9, min_p=0.05, seed=rng.randrange(1 << 32),
                    repeat_penalty=1.1, presence_penalty=0.2, frequency_penalty=0.1, stop=["\n\n"])
    if kind == "chat":
        path = "/v1/chat/completions"
        body = {"messages": [{"role": "user", "content": prompt}], "max_tokens": 24, "temperature": 0}
    if kind.endswith("stream") or kind == "disconnect":
        body["stream"] = True
    if kind == "disconnect":
        body["max_tokens"] = 400
    if kind == "malformed":
        return kind, path, MALFORMED[(i // len(KINDS)) % len(MALFORMED)]
    if kind == "too_long":
        body["prompt"] = "Once upon a time " * (ctx // 2)
    return kind, path, body


def post(port, path, body, stream=False, hang_up_after=None):
    """(status, text or error dict). Streams are read event by event; with
    hang_up_after, the connection is closed after that many events."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        data = body if isinstance(body, str) else json.dumps(body)
        conn.request("POST", path, data.encode("utf-8", "surrogateescape"), {"Content-Type": "application/json"})
        resp = conn.getresponse()
        if resp.status != 200 or not stream:
            return resp.status, json.loads(resp.read())
        text, events, done = "", 0, False
        while True:
            line = resp.readline()
            if not line:
                break
            line = line.decode().rstrip("\n")
            if not line.startswith("data: "):
                continue
            if line == "data: [DONE]":
                done = True
                break
            chunk = json.loads(line[6:])
            if "error" in chunk:
                return 500, chunk
            events += 1
            if chunk["choices"]:
                c = chunk["choices"][0]
                text += c.get("text") or (c.get("delta") or {}).get("content") or ""
            if hang_up_after is not None and events >= hang_up_after:
                return 0, None  # hung up
        if not done:
            return 599, {"error": "the stream ended without [DONE]"}
        return 200, text
    finally:
        conn.close()


def get_health(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/health")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def text_of(status, out):
    if status != 200 or isinstance(out, str):
        return out
    choice = out["choices"][0]
    return choice["text"] if "text" in choice else choice["message"]["content"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessera")
    ap.add_argument("--model")
    ap.add_argument("--port", type=int, help="use a running server instead of starting one")
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--parallel", type=int, default=4)
    ap.add_argument("--ctx", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()

    server = None
    if args.port:
        port = args.port
    else:
        server = Server(args.tessera, args.model,
                        ["--parallel", str(args.parallel), "--ctx", str(args.ctx), "--queue", str(2 * args.clients)])
        port = server.port
    failures = []
    if server and not any("listening on" in line and ", on cpu;" in line for line in server.log):
        failures.append("the startup line does not say the server runs on the CPU: " + "".join(server.log))
    try:
        requests = [request_for(i, args.ctx) for i in range(args.clients)]
        # Every deterministic request's answer alone, one at a time.
        alone = {}
        for kind, path, body in requests:
            if kind in ("greedy", "greedy_stream", "seeded", "seeded_stream", "chat"):
                key = json.dumps({**body, "stream": False}, sort_keys=True)
                if key not in alone:
                    solo = {**body, "stream": False}
                    status, out = post(port, path, solo)
                    assert status == 200, (status, out)
                    alone[key] = text_of(status, out)

        rss = []
        for round_ in range(args.rounds):
            results = [None] * len(requests)

            def client(i):
                kind, path, body = requests[i]
                try:
                    stream = isinstance(body, dict) and body.get("stream", False)
                    results[i] = post(port, path, body, stream, hang_up_after=2 if kind == "disconnect" else None)
                except Exception as e:  # a refused or reset connection is a failure too
                    results[i] = (-1, repr(e))

            start = time.time()
            threads = [threading.Thread(target=client, args=(i,)) for i in range(len(requests))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.time() - start
            counts = {}
            seeded_equal = [0, 0]
            for (kind, path, body), (status, out) in zip(requests, results):
                counts[kind] = counts.get(kind, 0) + 1
                if kind == "malformed":
                    if status != 400 or "error" not in out:
                        failures.append(f"malformed body {body!r}: {status} {out}")
                elif kind == "too_long":
                    msg = out.get("error", {}).get("message", "") if isinstance(out, dict) else ""
                    if status != 400 or str(args.ctx) not in msg:
                        failures.append(f"over-long prompt: {status} {out}")
                elif kind == "disconnect":
                    if status != 0:
                        failures.append(f"disconnecting client: {status} {out}")
                else:
                    want = alone[json.dumps({**body, "stream": False}, sort_keys=True)]
                    got = text_of(status, out)
                    if status != 200:
                        failures.append(f"{kind} {body}: {status} {got!r}")
                    elif kind.startswith("seeded"):
                        # A random draw may land on the other side of a boundary
                        # when a cached prefix changes how the prompt was split
                        # into passes (last-bit differences): counted, not required.
                        seeded_equal[0] += got == want
                        seeded_equal[1] += 1
                    elif got != want:
                        failures.append(f"{kind} {body}: {got!r}, alone {want!r}")
            # Every slot free again (the disconnected jobs cancelled or finished), nothing queued.
            deadline = time.time() + 30
            while True:
                health = get_health(port)
                if health["slots_processing"] == 0 and health["queued"] == 0:
                    break
                if time.time() > deadline:
                    failures.append(f"slots still busy 30 s after the round: {health}")
                    break
                time.sleep(0.1)
            if server:
                rss.append(server.rss_kib())
            print(f"round {round_ + 1}: {len(requests)} clients in {elapsed:.1f} s, {counts}; "
                  f"seeded equal to alone: {seeded_equal[0]}/{seeded_equal[1]}; health {health}"
                  + (f"; RSS {rss[-1] // 1024} MiB" if server else ""))
        # Memory bounded: the later rounds (caches and threads already made) take no more than the first + 16 MiB.
        if len(rss) > 1 and max(rss[1:]) > rss[0] + 16 * 1024:
            failures.append(f"memory grew from round to round: RSS {rss} KiB")
        # Still serving: a last greedy request equals its lone run.
        kind, path, body = requests[0]
        status, out = post(port, path, body)
        if text_of(status, out) != alone[json.dumps({**body, "stream": False}, sort_keys=True)]:
            failures.append(f"the server answers differently after the load: {status} {out}")
    finally:
        if server:
            server.stop()
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print(f"ok: {args.rounds} rounds of {args.clients} clients, every completed request equal to its lone run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
