#!/usr/bin/env python3
"""airports-stream.py - turn the OpenFlights airports table (lon, lat,
keywords, altitude_ft, utc_offset; tab-separated) into a Spate stream, in
the manner of the DRt-Cluster paper's workload (tools/places-stream.py,
with the airports' columns and a fixed set of constraints: altitude_ft
>= 1000 or < 500, utc_offset != 0 or = 1). Deterministic by --seed.
"""
import importlib.util
import os

spec = importlib.util.spec_from_file_location(
    "places_stream", os.path.join(os.path.dirname(os.path.abspath(__file__)), "places-stream.py"))
places_stream = importlib.util.module_from_spec(spec)
spec.loader.exec_module(places_stream)

if __name__ == "__main__":
    places_stream.main(defaults={
        "attrs": "altitude_ft,utc_offset",
        "cons": "altitude_ft>=1000;altitude_ft<500;utc_offset!=0;utc_offset=1",
    })
