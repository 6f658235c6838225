#!/usr/bin/env python3
"""Python json.load of a Kineto trace + a kernel duration sum (the naive script baseline)."""
import json
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)
total = sum(e.get("dur", 0) for e in doc["traceEvents"] if e.get("cat") == "kernel")
print("kernel total us", total)
