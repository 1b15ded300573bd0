"""What scripts/fleet-test and scripts/kube-test share: podman with the
project's containers.conf, nginx on loopback from an `http { }` body, and
the way a check is said and fails."""
import os
import subprocess

from processes import Server, free_port

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NGINX = "/usr/sbin/nginx"
# deploy/containers.conf: the runc runtime and the limits a container may set here.
PODMAN_ENV = dict(os.environ, CONTAINERS_CONF=os.path.join(ROOT, "deploy", "containers.conf"))


class Failed(Exception):
    pass


class Reporter:
    """Lines prefixed with the test's name; a failed check raises Failed."""

    def __init__(self, name):
        self.name = name

    def say(self, line):
        print(f"{self.name}: {line}", flush=True)

    def check(self, condition, message):
        if not condition:
            raise Failed(message)
        self.say(f"ok: {message}")


def podman(*arguments, check_status=True, stdin=None):
    result = subprocess.run(["podman", *arguments], capture_output=True, text=True, env=PODMAN_ENV, input=stdin)
    if check_status and result.returncode != 0:
        raise Failed(f"podman {' '.join(arguments)}: {result.stderr.strip()}")
    return result.stdout.strip()


def image_exists(image):
    return subprocess.run(["podman", "image", "exists", image], env=PODMAN_ENV).returncode == 0


def nginx(name, folder, http, ready="/", error_level="error"):
    """nginx in the foreground with `http` as its http { } block's contents
    (PORT in it: the loopback port it is given); its files in `folder`."""
    os.makedirs(folder, exist_ok=True)
    port = free_port()
    conf = os.path.join(folder, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log {error_level};
events {{ worker_connections 4096; }}
http {{
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
{http.replace("PORT", str(port))}
}}
""")
    server = Server(name, [NGINX, "-c", conf, "-p", folder], port, ready=ready)
    server.folder = folder
    return server
