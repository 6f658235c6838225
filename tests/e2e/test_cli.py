#!/usr/bin/env python3
"""End-to-end tests: run the gpuscope binary on the repository's own fixtures (tests/data) and
check what a user sees - exit codes, one-line errors, tables, CSV and the JSON contract. The
cases live in cases_*.py (registered on import); harness.py runs them.
Stdlib only; prints 'N passed, N failed'."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases_import  # noqa: E402,F401 - registers its tests
import cases_analysis  # noqa: E402,F401
import cases_run  # noqa: E402,F401
import cases_run_window  # noqa: E402,F401
import cases_output  # noqa: E402,F401
import cases_validation  # noqa: E402,F401
import cases_roofline  # noqa: E402,F401
import cases_job  # noqa: E402,F401
import cases_first_hour  # noqa: E402,F401
import cases_hostile  # noqa: E402,F401
import cases_recording  # noqa: E402,F401
import cases_whatif  # noqa: E402,F401
import cases_memory  # noqa: E402,F401
import cases_impossible  # noqa: E402,F401
import cases_hostile_input  # noqa: E402,F401
import cases_labels  # noqa: E402,F401
import cases_comparable  # noqa: E402,F401
import cases_categories  # noqa: E402,F401
import cases_names  # noqa: E402,F401
import harness  # noqa: E402

if __name__ == "__main__":
    sys.exit(harness.main())
