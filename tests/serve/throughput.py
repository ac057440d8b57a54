#!/usr/bin/env python3
"""Throughput of an OpenAI-compatible server under C concurrent streams
(python3 stdlib only; docs/server.md has the table and the commands).

For each C (--concurrency, default 1,4,16,64), C clients at once stream
POST /v1/completions of the same prompt for --tokens tokens (greedy;
`ignore_eos` is sent for servers that honour it, and the default prompt is
a count that does not end early anyway: every stream's finish_reason and
token count are checked and reported). Prints per C: aggregate generated
tokens/s (all streams' tokens over the wall time from the first request to
the last end), mean time to first token, mean per-stream decoding tokens/s
(tokens after the first over the time after the first), and the load
average just before the run. The streams ask the same greedy question: a
server whose batched passes keep each sequence's results its own gives
them one text ("texts": the number of distinct texts).

Either --url names a running server (measured at the C given), or --server
with --binary and --model start one per C with --parallel C (throughput_servers.py).
"""

import argparse
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

from throughput_servers import ServerProcess

DEFAULT_PROMPT = "Count from 1 to 1000, separated by commas: 1, 2, 3, 4, 5,"


def stream_one(host, port, body, out):
    """One streaming request; fills `out` with its timings, tokens and finish reason."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection(host, port, timeout=900)
    conn.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        out["error"] = f"HTTP {resp.status}: {resp.read()[:200]!r}"
        return
    first = None
    pieces = 0
    text = []
    for raw in resp:
        line = raw.decode("utf-8", "replace").strip()
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        if "error" in chunk:
            out["error"] = str(chunk["error"])
            break
        if chunk.get("usage"):
            out["tokens"] = chunk["usage"]["completion_tokens"]
        for choice in chunk.get("choices", []):
            if choice.get("text"):
                pieces += 1
                text.append(choice["text"])
                if first is None:
                    first = time.perf_counter()
            if choice.get("finish_reason"):
                out["finish"] = choice["finish_reason"]
    end = time.perf_counter()
    conn.close()
    out.setdefault("tokens", pieces)  # a server without usage: text pieces (about one per token)
    out.update(start=start, first=first if first is not None else end, end=end, text="".join(text))


def measure(url, concurrency, tokens, prompt):
    u = urllib.parse.urlparse(url)
    body = {"prompt": prompt, "max_tokens": tokens, "temperature": 0, "stream": True, "ignore_eos": True,
            "stream_options": {"include_usage": True}}
    results = [{} for _ in range(concurrency)]
    threads = [threading.Thread(target=stream_one, args=(u.hostname, u.port, body, r)) for r in results]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        raise SystemExit(f"{len(errors)} of {concurrency} requests failed, the first: {errors[0]}")
    total = sum(r["tokens"] for r in results)
    ttft = sum(r["first"] - r["start"] for r in results) / concurrency
    per_stream = sum((r["tokens"] - 1) / max(r["end"] - r["first"], 1e-9) for r in results) / concurrency
    finishes = {}
    for r in results:
        finishes[r.get("finish")] = finishes.get(r.get("finish"), 0) + 1
    return {"concurrency": concurrency, "tokens": total, "wall_s": wall, "aggregate_tps": total / wall,
            "ttft_s": ttft, "per_stream_tps": per_stream, "min_tokens": min(r["tokens"] for r in results),
            "finish": finishes, "load_before": load, "distinct_texts": len({r["text"] for r in results}),
            "text": results[0]["text"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running server (e.g. http://127.0.0.1:8080)")
    ap.add_argument("--server", choices=["tessera", "llama-server"], help="start this kind of server per C")
    ap.add_argument("--binary", help="its executable (tessera, or llama-server)")
    ap.add_argument("--model", help="the GGUF file it serves")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ctx-per-seq", type=int, default=256, help="context of each stream (llama-server: -c C*this)")
    ap.add_argument("--concurrency", default="1,4,16,64")
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--prompt", default=DEFAULT_PROMPT)
    ap.add_argument("--log-dir", default=".", help="where the started servers' logs go")
    ap.add_argument("--json", help="also write the rows to this file")
    a = ap.parse_args()
    if not a.url and not (a.server and a.binary and a.model):
        ap.error("give --url, or --server, --binary and --model")

    rows = []
    print("| server | C | tokens | wall s | aggregate tok/s | mean TTFT s | per-stream tok/s | finish | texts | load before |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in [int(x) for x in a.concurrency.split(",")]:
        server = None
        url = a.url
        if not url:
            log = os.path.join(a.log_dir, f"throughput-{a.server}-{c}.log")
            server = ServerProcess(a.server, a.binary, a.model, c, a.threads, a.ctx_per_seq, log)
            url = f"http://127.0.0.1:{server.port}"
        try:
            measure(url, 1, 4, "Hello")  # warm-up: a different prompt, so that no slot caches the measured one
            row = measure(url, c, a.tokens, a.prompt)
        finally:
            if server:
                server.stop()
        row["server"] = a.server or url
        rows.append(row)
        finish = ", ".join(f"{k} {v}" for k, v in sorted(row["finish"].items(), key=str))
        print(f"| {row['server']} | {c} | {row['tokens']} | {row['wall_s']:.1f} | {row['aggregate_tps']:.1f} | "
              f"{row['ttft_s']:.2f} | {row['per_stream_tps']:.2f} | {finish} | {row['distinct_texts']} | "
              f"{row['load_before']:.2f} |", flush=True)
        if row["min_tokens"] < a.tokens:
            print(f"note: a stream ended after {row['min_tokens']} of {a.tokens} tokens", file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
