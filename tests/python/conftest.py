"""pytest set-up for the Python package: the gpuscope module under test (the build tree's, via
PYTHONPATH, or an installed one), the CLI binary to compare with (GPUSCOPE_BIN), the fixtures."""
import os
import shutil
import sqlite3

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "data")


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("GPUSCOPE_BIN") or shutil.which("gpuscope") or os.path.join(ROOT, "build", "ci", "gpuscope")
    if not os.path.exists(path):
        pytest.skip("no gpuscope binary to compare with (set GPUSCOPE_BIN)")
    return path


@pytest.fixture(scope="session")
def fixtures(tmp_path_factory):
    """One trace per format gpuscope reads, from the repository's own fixtures."""
    tmp = tmp_path_factory.mktemp("fixtures")
    out = {
        "kineto": os.path.join(DATA, "kineto_cuda_small.json"),
        "kineto-gz": os.path.join(DATA, "kineto_cuda_small.json.gz"),
        "kineto-rocm": os.path.join(DATA, "kineto_rocm_small.json"),
        "kineto-shapes": os.path.join(DATA, "kineto_shapes_small.json"),
        "rocprofv3-json": os.path.join(DATA, "rocprofv3_small_results.json"),
        "rocprofv3-csv": os.path.join(DATA, "rocprofv3_csv_A"),
        "rocprof-csv": os.path.join(DATA, "rocprof_v1", "results.csv"),
        "rocprof-json": os.path.join(DATA, "rocprof_v1", "results.json"),
        "serving": os.path.join(DATA, "serving_exec.json"),
        "rocprof-raw": os.path.join(DATA, "rocprof_v1", "rpl_data", "hcc_ops_trace.txt"),
    }
    for name, sql in (("rpd", "rpd_small.sql"), ("rocpd", "rocpd_small.sql"), ("nsys", "nsys_small.sql"),
                      ("rocprof-db", "rocprof_results_db.sql")):
        path = str(tmp / (name + (".rpd" if name == "rpd" else ".db" if name != "nsys" else ".sqlite")))
        db = sqlite3.connect(path)
        with open(os.path.join(DATA, sql)) as f:
            db.executescript(f.read())
        db.commit()
        db.close()
        out[name] = path
    # gpuscope's own CSV (events.csv), written by the package from the Kineto fixture.
    import gpuscope

    gpuscope.convert(gpuscope.load(out["kineto"]), str(tmp / "csv") + "/")
    out["gpuscope-csv"] = str(tmp / "csv")
    return out
