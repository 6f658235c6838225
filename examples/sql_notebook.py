# %% [markdown]
# # Questions in SQL over a trace
# Load a trace, ask DuckDB where the GPU time goes (`gpuscope.query`: SQL over the trace's Arrow
# tables, no copy), plot the top kernels by category and the findings by the time their fixes
# save.
#
#     python examples/sql_notebook.py TRACE [OUT_DIR]
#
# Needs `pip install 'gpuscope[sql]' matplotlib`. The tables and their columns:
# `gpuscope help tables`. Cells are marked `# %%` (VS Code, jupytext, Spyder).

# %%
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files, no screen
import matplotlib.pyplot as plt  # noqa: E402

import gpuscope  # noqa: E402

trace_path = sys.argv[1]
out_dir = sys.argv[2] if len(sys.argv) > 2 else "."
os.makedirs(out_dir, exist_ok=True)
t = gpuscope.load(trace_path)

# %% [markdown]
# ## GPU time by kernel category
# Kernels are grouped by their `category` column where the trace's table has one (GEMM,
# attention, elementwise, ...), else by name: set GROUP to choose.

# %%
kernel_columns = gpuscope.query(t, "SELECT * FROM kernels LIMIT 0").column_names
GROUP = "category" if "category" in kernel_columns else "name"
top = gpuscope.query(t, f"""
    SELECT {GROUP} AS kernel_group, count(*) AS calls, sum(dur_ns) / 1e6 AS total_ms,
           100 * sum(dur_ns) / (SELECT sum(dur_ns) FROM kernels) AS percent
    FROM kernels GROUP BY {GROUP} ORDER BY total_ms DESC LIMIT 10""").to_pandas()
print(f"GPU time by kernel {GROUP}:")
print(top.to_string(index=False, max_colwidth=60))

fig, ax = plt.subplots(figsize=(9, 3.5))
labels = [str(n)[:50] for n in top["kernel_group"]][::-1]
ax.barh(labels, top["total_ms"][::-1], color="#4e79a7")
ax.set_xlabel("GPU time (ms)")
ax.set_title(f"Top kernels by {GROUP}: {os.path.basename(trace_path)}")
fig.tight_layout()
kernels_png = os.path.join(out_dir, "sql_top_kernels.png")
fig.savefig(kernels_png, dpi=100)
print("plot:", kernels_png)

# %% [markdown]
# ## Findings, by the time their fixes save
# `findings` is a table too: `impact_ns` is the wall time the fix saves, priced by replaying
# the run (on top of the fixes before it).

# %%
findings = gpuscope.query(t, """
    SELECT rule, severity, impact_ns / 1e6 AS saves_ms, impact_percent,
           coalesce(nullif(python, ''), nullif(op, ''), kernel) AS at
    FROM findings ORDER BY impact_ns DESC, id""").to_pandas()
print(findings.to_string(index=False, max_colwidth=50) if len(findings) else "no findings")
fig, ax = plt.subplots(figsize=(9, 3))
if len(findings):
    colors = {"high": "#c0392b", "medium": "#e67e22", "low": "#4e79a7", "info": "#b8c0cc"}
    ax.barh(findings["rule"][::-1], findings["saves_ms"][::-1],
            color=[colors.get(s, "#4e79a7") for s in findings["severity"][::-1]])
    ax.set_xlabel("saves (ms of the replayed window)")
else:
    ax.text(0.5, 0.5, "no findings", ha="center", va="center", transform=ax.transAxes)
ax.set_title("Findings")
fig.tight_layout()
findings_png = os.path.join(out_dir, "sql_findings.png")
fig.savefig(findings_png, dpi=100)
print("plot:", findings_png)
