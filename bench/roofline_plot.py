#!/usr/bin/python3
"""Roofline plot of a tessera_bench JSON run.

    build/bin/tessera_bench --benchmark_filter='StreamRead|FmaPeak|BM_Op/.*/tinyllama' \
        --benchmark_out=ops.json --benchmark_out_format=json
    bench/roofline_plot.py ops.json roofline.png

The roofs come from BM_StreamRead (GB/s) and BM_FmaPeak (GFLOP/s) of the same
run; every BM_Op benchmark with FLOPs is a point at its arithmetic intensity
(flops / bytes, from the op's declared cost) and achieved GFLOP/s. Needs
python3-matplotlib (Debian).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        runs = [b for b in json.load(f)["benchmarks"] if b.get("run_type", "iteration") == "iteration"]

    def best(prefix, counter):
        values = [b[counter] for b in runs if b["name"].startswith(prefix) and counter in b]
        if not values:
            sys.exit(f"{argv[1]}: no {prefix} run; include it in --benchmark_filter")
        return max(values)

    bandwidth = best("BM_StreamRead", "GB/s")
    peak = best("BM_FmaPeak", "GFLOP/s")
    points = {}
    for b in runs:
        if not b["name"].startswith("BM_Op/") or b.get("flops", 0) <= 0:
            continue
        parts = b["name"].split("/")
        op = parts[1] if parts[1] != "matmul" else "matmul " + parts[2]
        tokens = next((int(p.split(":")[1]) for p in parts if p.startswith("tokens:")), 1)
        points.setdefault(op, []).append((b["flops"] / b["bytes"], b["GFLOP/s"], tokens))

    fig, ax = plt.subplots(figsize=(9, 6))
    xs = [p[0] for ps in points.values() for p in ps] + [peak / bandwidth]
    lo, hi = min(xs) / 2, max(xs) * 2
    ridge = peak / bandwidth
    ax.plot([lo, ridge, hi], [lo * bandwidth, peak, peak], color="black", linewidth=2)
    ax.annotate(f"read bandwidth {bandwidth:.1f} GB/s", (lo, lo * bandwidth), textcoords="offset points", xytext=(5, 8),
                rotation=30)
    ax.annotate(f"FMA peak {peak:.0f} GFLOP/s", (ridge, peak), textcoords="offset points", xytext=(5, 5))
    for op, ps in sorted(points.items()):
        ax.scatter([p[0] for p in ps], [p[1] for p in ps], s=[12 + 4 * p[2] ** 0.5 for p in ps], label=op, alpha=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP / byte)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("tessera CPU ops (marker size: tokens per call)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=120)


if __name__ == "__main__":
    main(sys.argv)
