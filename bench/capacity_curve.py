"""Draw the curves of stored capacity searches: offered against achieved IOPS, and p50, p99
and p99.9 against the offered rate, the knee and the capacity with its CI marked; print each
search's figures.

    .venv/bin/python bench/capacity_curve.py --db /tmp/h6.db 3 4 -o capacity.png
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from cephbench.capacity.driver import load
from cephbench.store import Store


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("ids", nargs="+", type=int)
    parser.add_argument("-o", "--output", default="capacity.png")
    parser.add_argument("--labels", help="a name for each search, comma-separated (default: "
                        "what it ran while, or healthy)")  # fmt: skip
    args = parser.parse_args()
    labels = args.labels.split(",") if args.labels else []
    fig, (rate, lat) = plt.subplots(1, 2, figsize=(12, 4.5))
    with Store(args.db) as store:
        for i, (cap_id, colour) in enumerate(zip(args.ids, ("C0", "C3", "C2", "C1"), strict=False)):
            doc = load(store, cap_id).to_json()
            name = f"{cap_id}: {labels[i] if i < len(labels) else doc['while'] or 'healthy'}"
            steps = sorted(doc["steps"], key=lambda s: s["offered_iops"])
            x = [s["offered_iops"] for s in steps]
            rate.plot(x, [s["achieved_iops"] for s in steps], "o", color=colour, label=name)
            for key, mark in (("p50_us", "^"), ("p99_us", "o"), ("p999_us", "s")):
                lat.plot(
                    x,
                    [(s[key] or 0) / 1000 for s in steps],
                    mark,
                    color=colour,
                    alpha=0.8,
                    label=f"{name} {key.removesuffix('_us')}",
                )
            r = doc["result"]
            if r["capacity_iops"]:
                for ax in (rate, lat):
                    ax.axvline(r["capacity_iops"], color=colour, linestyle="--", linewidth=1)
                    if r["ci95_iops"]:
                        ax.axvspan(*r["ci95_iops"], color=colour, alpha=0.1)
            if doc["knee"]:
                k = doc["knee"]
                lat.plot(k["offered_iops"], k["latency_us"] / 1000, "*", color=colour, ms=14)
            print(
                f"search {cap_id} ({doc['while'] or 'healthy'}): {r['capacity_iops']} IOPS, "
                f"CI {r['ci95_iops']}, {r['verdict']} ({r['reason']}); "
                f"{len(steps)} steps; knee {doc['knee']}; notes {doc['notes']}"
            )
    top = max(rate.get_xlim()[1], rate.get_ylim()[1])
    rate.plot([0, top], [0, top], color="grey", linewidth=0.8, label="achieved = offered")
    rate.set(xlabel="offered IOPS", ylabel="achieved IOPS", title="Offered against achieved")
    target = doc["rule"]["target_us"] / 1000
    lat.axhline(target, color="black", linewidth=0.8, label=f"target {target:g} ms")
    lat.set(xlabel="offered IOPS", ylabel="latency (ms)", yscale="log", title="Percentiles")
    rate.legend(fontsize=7)
    lat.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
