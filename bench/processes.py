"""The benchmarks' processes: ports, start and stop, resident memory and CPU
time of a process with its children (thumbor's forked workers, nginx's)."""
import http.client
import os
import signal
import socket
import subprocess
import threading
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Pinned runs (bench/servers.py --pin): the cores the servers run on, and
# those of the clients, the origin and the harness; None: anywhere.
PINNING = {"server": None, "client": None}


def pinned(command, role="server"):
    """`command` run under taskset on its role's cores, when pinned."""
    cpus = PINNING[role]
    return ["taskset", "-c", cpus, *command] if cpus else list(command)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, path="/", timeout=60, accept=(200, 404)):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", path)
            status = c.getresponse().status
            c.close()
            if status in accept:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"nothing answered on port {port} within {timeout} s")


def tree(pid):
    """`pid` and its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def tree_sum(pid, name, key):
    """A field (`key`, in kiB) of /proc/PID/`name`, summed over `pid` and
    its children."""
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/{name}") as f:
                total += next((int(line.split()[1]) for line in f if line.startswith(key)), 0)
        except OSError:
            pass
    return total


def rss_kib(pid):
    """Resident memory of `pid` and its children, summed (pages a fork
    shares count in each)."""
    return tree_sum(pid, "status", "VmRSS:")


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        for p in tree(pid):
            try:
                with open(f"/proc/{p}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
            except (OSError, IndexError):
                pass
    return total / CLOCK_TICKS


def wait_for_quiet(servers, limit=60):
    """Waits until none of `servers` burns CPU: a peer that goes on with
    work after its client hangs up (thumbor, image_filter) must not bill
    the next run. Only our own processes count, so that other load on the
    machine does not stall the run."""
    pids = [p for s in servers for p in s.pids if os.path.exists(f"/proc/{p}")]
    deadline = time.time() + limit
    before = cpu_seconds(pids)
    while time.time() < deadline:
        time.sleep(0.5)
        now = cpu_seconds(pids)
        if now - before < 0.05:     # under a tenth of a core
            return
        before = now


def pss_kib(pid):
    """Proportional set size of `pid` and its children, summed: each page
    shared by n processes counts 1/n in each, so a forking server's workers
    are not counted n times over (as their summed RSS is)."""
    return tree_sum(pid, "smaps_rollup", "Pss:")


class RSSSampler:
    """Samples the resident memory of process trees (one pid or a list:
    RSS, and PSS every fifth sample: smaps_rollup walks every mapping)
    every 100 ms."""

    def __init__(self, pids):
        self.pids = pids if isinstance(pids, list) else [pids]
        self.samples, self.pss, self._stop = [], [], threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.samples.append((time.time(), sum(rss_kib(p) for p in self.pids)))
            if len(self.samples) % 5 == 1:
                self.pss.append(sum(pss_kib(p) for p in self.pids))
            self._stop.wait(0.1)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    @property
    def peak_mib(self):
        return max((kib for _, kib in self.samples), default=0) / 1024

    @property
    def peak_pss_mib(self):
        return max(self.pss, default=0) / 1024


class Server:
    """A peer's process group; `ready`: the path to poll until it answers
    (None: the caller decides when it is ready)."""

    def __init__(self, name, command, port, env=None, ready="/", cwd=None, role="server"):
        self.name, self.port = name, port
        self.process = subprocess.Popen(pinned(command, role), env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        if ready is not None:
            try:
                wait_for(port, ready)
            except BaseException:
                # Never left running when it did not come up.
                self.stop()
                raise

    @property
    def pid(self):
        return self.process.pid

    @property
    def pids(self):
        """The processes whose CPU and memory are the server's."""
        return [self.process.pid]

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


class FolderOrigin:
    """A folder's files over HTTP on loopback, from a thread of this
    process (a query string is ignored: a new one makes a new source URL
    for the same file)."""

    def __init__(self, folder):
        import http.server
        handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=folder, **k)  # noqa: E731
        http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
