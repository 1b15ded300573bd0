"""Load: wrk runs (cold, with a source URL nobody has seen per request;
warm, one URL again and again), and a probe that asks for one cached image
on a fixed beat while the load runs."""
import http.client
import os
import random
import re
import subprocess
import time

from processes import pinned

COLD_SCRIPT = """
local prefix, suffix = %(prefix)s, %(suffix)s
local photos = {%(photos)s}
local headers = {%(headers)s}
local run = %(run)s
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tag", run .. "t" .. threads)
end
local counter = 0
function request()
  counter = counter + 1
  local photo = photos[(counter %% #photos) + 1]
  return wrk.format("GET", prefix .. tag .. "n" .. counter .. "/" .. photo .. suffix, headers)
end
"""


def lua_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lua_headers(headers):
    return ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in (headers or {}).items())


def latency_ms(text):
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def parse_wrk(out, err=""):
    """wrk's figures; `failed` names why the run does not count: any
    non-2xx answer or socket error (connect, read, write, timeout)."""
    script_error = re.search(r"\S+\.lua:\d+:.*", out + err)
    if script_error:     # wrk runs on without the script's requests
        return {"rate": 0, "p50": 0, "p99": 0, "requests": 0, "failed": "wrk's script: " + script_error.group(0)[:200]}
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if not rate:
        return {"rate": 0, "p50": 0, "p99": 0, "requests": 0, "failed": "wrk: " + (err or out).strip()[-200:]}
    figures = {"rate": float(rate.group(1)),
               "p50": latency_ms(re.search(r"50%\s+([\d.]+\w+)", out).group(1)),
               "p99": latency_ms(re.search(r"99%\s+([\d.]+\w+)", out).group(1)),
               "requests": int(re.search(r"(\d+) requests in", out).group(1)), "failed": None}
    reasons = []
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if bad and int(bad.group(1)):
        reasons.append(f"{bad.group(1)} non-2xx")
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if errors:
        for kind, count in zip(("connect", "read", "write", "timeout"), errors.groups()):
            if int(count):
                reasons.append(f"{count} {kind} errors")
    if not figures["requests"]:
        reasons.append("no answer came within the run")
    figures["failed"] = ", ".join(reasons) or None
    return figures


def wrk(port, connections, seconds, path=None, template=None, photos=None, scratch=None, headers=None):
    """Runs wrk at `path`, or, with `template` ("...{nonce}/{photo}..."), on a
    new source URL per request."""
    command = pinned(["wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "30s"], "client")
    if template:
        prefix, suffix = template.split("{nonce}/{photo}")
        script = os.path.join(scratch, f"cold-{random.getrandbits(40):x}.lua")
        with open(script, "w") as f:
            f.write(COLD_SCRIPT % {"prefix": lua_string(prefix), "suffix": lua_string(suffix),
                                   "photos": ", ".join(lua_string(p) for p in photos), "headers": lua_headers(headers),
                                   "run": lua_string(f"r{random.getrandbits(40):x}")})
        command += ["-s", script]
        path = "/"
    else:
        for k, v in (headers or {}).items():
            command += ["-H", f"{k}: {v}"]
    out = subprocess.run(command + [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True)
    return parse_wrk(out.stdout, out.stderr)


def probe(port, path, seconds, interval=0.05):
    """Asks for `path` every `interval` on one keep-alive connection.

    Returns the latencies in ms and how many ticks were skipped because the
    previous answer had not come yet."""
    latencies, skipped = [], 0
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.perf_counter()
    tick = 0
    while True:
        due = start + tick * interval
        now = time.perf_counter()
        if now - start > seconds:
            break
        if due > now:
            time.sleep(due - now)
        t0 = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        latencies.append((time.perf_counter() - t0) * 1000)
        done = time.perf_counter()
        next_tick = int((done - start) / interval) + 1
        skipped += max(0, next_tick - tick - 1)
        tick = next_tick
    connection.close()
    return latencies, skipped


def percentile(values, p):
    """Nearest rank: of 400 samples, p99 is the fifth largest."""
    values = sorted(values)
    return values[min(len(values) - 1, max(0, -(-len(values) * p // 100) - 1))] if values else 0
