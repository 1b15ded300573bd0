"""The contenders as the benchmarks start them: darkroom serve, thumbor 7.8
(one process, and one per core), nginx as the origin, as a tuned static
file server, with image_filter, and as a proxy_cache in front of thumbor.

Encoder settings, side by side (imgproxy's defaults, which are Darkroom's):

| answer | darkroom (libvips)                         | thumbor 7.8 (Pillow 12)                     |
| JPEG   | q80, 4:2:0, baseline, Huffman optimised    | quality(80), 4:2:0, baseline, optimize=True |
| WebP   | q79, effort 4 (libwebp method 4)           | quality 79, method 4 (Pillow's default)     |
| AVIF   | q63, speed 8 (libvips effort 1), 4:2:0,    | quality 63, AVIF_SPEED 8, 4:2:0, libavif    |
|        | 8 bits, libheif with libaom                | with libaom (Pillow's own AVIF, no plugin)  |

The quality scales of libheif and libavif are not the same numbers, so
the fairness check compares each answer's bytes too, and the servers'
benchmark asks a peer whose answer is off for the quality that matches.
"""
import os
import shutil
import tempfile

from processes import Server, free_port

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV = os.path.join(ROOT, ".venv")
CORES = os.cpu_count() or 2
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
IMAGE_FILTER = "/usr/lib/nginx/modules/ngx_http_image_filter_module.so"
SIZE = 512
QUALITY = {"jpeg": 80, "webp": 79, "avif": 63}
AVIF_SPEED = 8      # libaom's speed on every side (libvips' effort 1)
# What a current Chromium sends for an <img>, and a client that takes WebP
# and not AVIF (Chromium before version 85).
ACCEPT_CHROMIUM = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
ACCEPT_WEBP = "image/webp,image/apng,image/*,*/*;q=0.8"


def nginx(name, scratch, body, workers=1, modules=(), listen="", http="", role="server", ready="/"):
    folder = os.path.join(scratch, name)
    os.makedirs(os.path.join(folder, "logs"), exist_ok=True)
    port = free_port()
    user = "user root;" if os.geteuid() == 0 else ""
    loads = "".join(f"load_module {m};\n" for m in modules)
    conf = f"""{loads}{user}
worker_processes {workers};
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/logs/error.log error;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    types {{ image/jpeg jpg; image/png png; image/webp webp; image/avif avif; image/heic heic; }}
    {http.replace("FOLDER", folder)}
    server {{
        listen 127.0.0.1:{port} {listen};
        {body.replace("PORT", str(port)).replace("FOLDER", folder)}
    }}
}}
"""
    path = os.path.join(folder, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    server = Server(name, [NGINX, "-c", path, "-p", folder], port, role=role, ready=ready)
    server.folder = folder
    return server


def origin(scratch, origin_dir):
    """The sources, at /c/ANY/NAME: a new ANY is a URL nobody has seen."""
    return nginx("origin", scratch, f"location ~ ^/c/[^/]+/(.+)$ {{ alias {origin_dir}/$1; }}\n"
                                    f"location /files/ {{ alias {origin_dir}/; }}", role="client")


def static(scratch, folder, workers=CORES):
    """nginx as a tuned static server runs: a worker per core (one in a
    pinned run, on the servers' core), each with its own listening socket,
    open files kept, sendfile."""
    return nginx("static", scratch, f"location /static/ {{ alias {folder}/; }}", workers=workers, listen="reuseport",
                 http="open_file_cache max=1000 inactive=60s; open_file_cache_valid 60s;")


def image_filter(scratch, o):
    body = (f"location /if/ {{ proxy_pass http://{o}/; image_filter resize {SIZE} {SIZE}; "
            f"image_filter_jpeg_quality {QUALITY['jpeg']}; image_filter_buffer 100M; image_filter_interlace off; }}")
    return nginx("image-filter", scratch, body, workers=CORES, modules=[IMAGE_FILTER])


def supports(binary, flag):
    import subprocess
    out = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True).stdout
    return flag in out


def darkroom(binary, scratch, extra=()):
    port = free_port()
    cache = tempfile.mkdtemp(dir=scratch, prefix="darkroom-cache-")
    command = [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--allow-private-networks",
               "--cache-dir", cache, "--max-waiting", "10000", *extra]
    env = dict(os.environ, LOG_LEVEL="warning")
    return Server(os.path.basename(binary), command, port, env=env, ready="/health")


class Group:
    """Servers that answer as one (thumbor instances behind nginx): the
    port is the first one's, CPU and memory are all of theirs."""

    def __init__(self, name, servers):
        self.name, self.servers = name, servers
        self.port, self.pid = servers[0].port, servers[0].pid

    @property
    def pids(self):
        return [s.pid for s in self.servers]

    def stop(self):
        for s in self.servers:
            s.stop()


def thumbor_behind_nginx(scratch, instances=CORES, negotiate="webp"):
    """thumbor as its documentation deploys it: a single-process thumbor
    per core, each on its own port, behind nginx balancing among them."""
    backends = []
    try:
        for i in range(instances):
            backends.append(thumbor(scratch, 1, negotiate, tag=f"-{i}"))
        http = "upstream thumbors { " + " ".join(f"server 127.0.0.1:{b.port};" for b in backends) + " keepalive 64; }"
        body = ("location / { proxy_pass http://thumbors; proxy_http_version 1.1; proxy_set_header Connection \"\"; "
                "proxy_read_timeout 120s; }")
        front = nginx(f"thumbor-front-{negotiate}", scratch, body, workers=1, http=http, ready="/healthcheck")
    except BaseException:
        # What started is stopped: the caller never gets the group to stop.
        for backend in backends:
            backend.stop()
        raise
    return Group(f"thumbor behind nginx {negotiate}", [front] + backends)


def thumbor(scratch, processes=1, negotiate="webp", tag=""):
    """thumbor with `processes` forked servers (its --processes), each with
    an engine thread pool of one per core. `negotiate`: which format it
    picks by Accept for a URL without format(): "webp" (AUTO_WEBP) or
    "avif" (AUTO_AVIF; thumbor checks AUTO_WEBP first, so only one is on).
    Explicit format() in the URL wins over either."""
    port = free_port()
    conf = os.path.join(scratch, f"thumbor-{processes}-{negotiate}{tag}.conf")
    with open(conf, "w") as f:
        f.write(f"""
ENGINE_THREADPOOL_SIZE = {CORES}
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
QUALITY = {QUALITY['jpeg']}
WEBP_QUALITY = {QUALITY['webp']}
AVIF_QUALITY = {QUALITY['avif']}
AVIF_SPEED = {AVIF_SPEED}
AVIF_CODEC = 'aom'
PROGRESSIVE_JPEG = False
PRESERVE_EXIF_INFO = False
ALLOW_UNSAFE_URL = True
AUTO_WEBP = {negotiate == "webp"}
AUTO_AVIF = {negotiate == "avif"}
RESPECT_ORIENTATION = True
MAX_AGE = 3600
HTTP_LOADER_MAX_CLIENTS = 32
""")
    command = [os.path.join(VENV, "bin", "thumbor"), "-p", str(port), "-i", "127.0.0.1", "-c", conf, "-l", "error",
               "--processes", str(processes)]
    return Server(f"thumbor x{processes} {negotiate}", command, port, ready="/healthcheck")


def thumbor_cache(scratch, name, thumbor_port, o):
    """nginx's proxy_cache in front of thumbor, as thumbor is deployed: nginx
    picks the format from Accept, names it to thumbor (with its quality),
    and keys the cache on it. Client URLs: /t/SIZE/c/VERSION/PHOTO. (Named
    captures: the maps' regexes would overwrite numbered ones.)"""
    http = f"""
    map $http_accept $fmt {{ ~image/avif avif; ~image/webp webp; default jpeg; }}
    map $fmt $q {{ avif {QUALITY['avif']}; webp {QUALITY['webp']}; default {QUALITY['jpeg']}; }}
    upstream thumbor {{ server 127.0.0.1:{thumbor_port}; keepalive 64; }}
    proxy_cache_path FOLDER/cache levels=1:2 keys_zone=thumbs:32m max_size=4g inactive=1h use_temp_path=off;
    log_format cache '$msec $upstream_cache_status';
    """
    body = f"""
        access_log FOLDER/cache.log cache buffer=64k flush=1s;
        location ~ ^/t/(?<size>\\d+)/(?<src>.+)$ {{
            proxy_pass http://thumbor/unsafe/fit-in/${{size}}x${{size}}/filters:quality($q):format($fmt)/{o}/$src;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache thumbs;
            proxy_cache_key "$size/$src/$fmt";
            proxy_cache_valid 200 1h;
            proxy_cache_lock on;
            proxy_cache_lock_timeout 60s;
            proxy_read_timeout 120s;
            add_header Vary Accept;
        }}
    """
    return nginx(name, scratch, body, workers=CORES, listen="reuseport", http=http)
