# %% [markdown]
# # gpuscope in a notebook
# Load a trace, look at the top kernels as a DataFrame, plot the latency of each iteration and
# list the findings - the same numbers as the `gpuscope` command, as pandas objects.
#
#     python examples/notebook.py [TRACE] [OUT_DIR]
#
# Without TRACE it profiles examples/inference_slow.py with the PyTorch profiler first (as
# `gpuscope run` does). Cells are marked `# %%` (VS Code, Jupyter's jupytext, Spyder run them
# one by one).

# %%
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files, no screen
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import gpuscope  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
trace_path = sys.argv[1] if len(sys.argv) > 1 else None
out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "build", "example")
os.makedirs(out_dir, exist_ok=True)
if trace_path is None:
    trace_path = os.path.join(out_dir, "notebook.json")
    gpuscope.run([sys.executable, os.path.join(here, "inference_slow.py")], output=trace_path, backend="torch")

t = gpuscope.load(trace_path)
t

# %% [markdown]
# ## Top kernels
# `t.kernels()` is a pyarrow Table (names dictionary-encoded); `.to_pandas()` gives categoricals.

# %%
kernels = t.kernels().to_pandas()
top = (kernels.groupby("name", observed=True)["dur_ns"]
       .agg(calls="count", total_ns="sum", mean_ns="mean")
       .sort_values("total_ns", ascending=False))
top["percent"] = 100 * top["total_ns"] / top["total_ns"].sum()
print(top.head(10).to_string())

# %% [markdown]
# ## Latency of each iteration
# Iterations come from the ProfilerStep#N markers; the analysis says which ones are warm-up.

# %%
report = gpuscope.analyze(t)
iters = t.iterations().to_pandas()
summary = report["summary"]
fig, ax = plt.subplots(figsize=(8, 3))
if len(iters):
    warm = summary.get("warmup_iterations", 0)
    colors = ["#b8c0cc" if i < warm else "#4e79a7" for i in range(len(iters))]
    ax.bar(iters["number"].astype(str), iters["dur_ns"] / 1e6, color=colors)
    ax.axhline(summary["iteration_median_ns"] / 1e6, color="#c0392b", linestyle="--", label="median (steady)")
    ax.legend()
else:
    ax.text(0.5, 0.5, "no iterations in this trace", ha="center", va="center", transform=ax.transAxes)
ax.set_xlabel("iteration")
ax.set_ylabel("ms")
ax.set_title(os.path.basename(trace_path))
fig.tight_layout()
latency_png = os.path.join(out_dir, "notebook_latency.png")
fig.savefig(latency_png, dpi=100)
print("latency plot:", latency_png)

# %% [markdown]
# ## Findings
# Each finding's `impact_ns` is the time its fix would save, priced by replaying the run.

# %%
findings = pd.DataFrame([{"rule": f["rule"], "severity": f["severity"], "saves_ms": f["impact_ns"] / 1e6,
                          "where": " > ".join(x for x in (f["where"]["python"], f["where"]["op"]) if x),
                          "fix": f["advice"][:80]} for f in report["findings"]])
print(findings.to_string(index=False) if len(findings) else "no findings")
