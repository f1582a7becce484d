#!/usr/bin/env python3
"""Runs ../shared/peers/mock_llm.py unchanged, with Nagle's algorithm off on its connections.

usage: mock_nodelay.py PATH/TO/mock_llm.py [mock options...]

The mock writes each response in several small send()s (status line and headers, then SSE events). With
Nagle on, a write that follows an unacknowledged one waits for the client's delayed ACK, about 40 ms on
Linux, so every request costs 40 ms more than the mock's own work, whoever the client is (curl included).
That stall would hide everything the benchmark measures; `socketserver.StreamRequestHandler` has a switch
for exactly this (`disable_nagle_algorithm`), set here before the mock starts.
"""
import runpy
import socketserver
import sys

socketserver.StreamRequestHandler.disable_nagle_algorithm = True
path = sys.argv[1]
sys.argv = [path] + sys.argv[2:]
runpy.run_path(path, run_name="__main__")
