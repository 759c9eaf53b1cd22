#!/usr/bin/env python3
"""Local Kafka (KRaft, single node) + OpenSearch (single node, k-NN) for integration tests.

Stdlib only. Used two ways:

* CLI (``deploy/local/services`` is a thin wrapper around it)::

      deploy/local/services deps     # resolve jars with Maven, javac the OpenSearch launcher
      deploy/local/services up       # deps + start both JVMs in parallel, wait until healthy
      deploy/local/services status   # health of each, non-zero exit if any is down
      deploy/local/services down     # SIGTERM the process groups, wait, SIGKILL

* Library (pytest fixtures load this file with importlib)::

      services.ensure_up()           # reuse running/healthy services or start them
      services.kafka_bootstrap()     # "127.0.0.1:9092"
      services.opensearch_url()      # "http://127.0.0.1:9200"
      services.knn_available()       # True iff GET /_plugins/_knn/stats == 200

Environment:
  EPISTREAM_KAFKA_BOOTSTRAP / EPISTREAM_OPENSEARCH_URL   use these external services, never start
  EPISTREAM_KAFKA_PORT (9092), EPISTREAM_KAFKA_CONTROLLER_PORT (kafka port + 1)
  EPISTREAM_OPENSEARCH_PORT (9200), EPISTREAM_OPENSEARCH_TRANSPORT_PORT (http port + 100)
  EPISTREAM_KAFKA_START_TIMEOUT (90 s), EPISTREAM_OPENSEARCH_START_TIMEOUT (120 s)
  EPISTREAM_REQUIRE_KNN (1)      0 = OpenSearch counts as healthy without the k-NN plugin
  EPISTREAM_JAVA / JAVA_HOME     java used to run the services (default: java on PATH, Java 17)

Layout (all under build/services/, gitignored):
  kafka/lib/*.jar  opensearch/{lib,knn}/*.jar  opensearch/classes/EmbeddedOpenSearch.class
  run/<stamp>/     fresh per `up`: kafka server.properties + data, opensearch home
  logs/{kafka,opensearch}.log    pids/{kafka,opensearch}.pid    state.json
"""

from __future__ import annotations

import base64
import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent  # deploy/local
REPO = HERE.parent.parent
BUILD = REPO / "build" / "services"
RUN_ROOT = BUILD / "run"
#: What the services store, kept across `up` (as a server's data directory would be): Kafka's log
#: dirs and OpenSearch's home. `up --wipe` starts both empty. The run dir holds only scratch files.
DATA = BUILD / "data"
LOGS = BUILD / "logs"
PIDS = BUILD / "pids"
STATE = BUILD / "state.json"
LOCK = BUILD / ".lock"

KAFKA_POM = HERE / "kafka" / "pom.xml"
KAFKA_LOG4J = HERE / "kafka" / "log4j2.properties"
OS_POM = HERE / "opensearch" / "pom.xml"
OS_LAUNCHER = HERE / "opensearch" / "EmbeddedOpenSearch.java"
OS_LOG4J = HERE / "opensearch" / "log4j2.properties"

KAFKA_OUT = BUILD / "kafka"
OS_OUT = BUILD / "opensearch"

KAFKA_JVM = ["-Xms256m", "-Xmx768m", "-XX:+UseG1GC", "-Djava.awt.headless=true", "-XX:+ExitOnOutOfMemoryError"]
OS_JVM = [
    "-Xms1g",
    "-Xmx1g",
    "-XX:+UseG1GC",
    "-XX:MaxDirectMemorySize=512m",
    "-Djava.awt.headless=true",
    "-Dfile.encoding=UTF-8",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.shutdownHookEnabled=false",
    "-XX:+ExitOnOutOfMemoryError",
]

SERVICES = ("kafka", "opensearch")
_started_here: set = set()  # services this process started (ensure_up stops them at exit)


class ServiceError(RuntimeError):
    pass


def _say(msg: str) -> None:
    print(f"[services] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- config


def _env_int(name: str, default: int) -> int:
    v = os.environ.get(name, "").strip()
    return int(v) if v else default


def ports() -> dict:
    """Env vars win; else the ports of services we started (state.json) if still running; else defaults."""
    st = _read_state().get("ports", {})
    k_def = st.get("kafka", 9092) if _read_pid("kafka") else 9092
    o_def = st.get("opensearch", 9200) if _read_pid("opensearch") else 9200
    k = _env_int("EPISTREAM_KAFKA_PORT", k_def)
    o = _env_int("EPISTREAM_OPENSEARCH_PORT", o_def)
    return {
        "kafka": k,
        "kafka_controller": _env_int("EPISTREAM_KAFKA_CONTROLLER_PORT", k + 1),
        "opensearch": o,
        "opensearch_transport": _env_int("EPISTREAM_OPENSEARCH_TRANSPORT_PORT", o + 100),
    }


def kafka_bootstrap() -> str:
    return os.environ.get("EPISTREAM_KAFKA_BOOTSTRAP") or f"127.0.0.1:{ports()['kafka']}"


def opensearch_url() -> str:
    return (os.environ.get("EPISTREAM_OPENSEARCH_URL") or f"http://127.0.0.1:{ports()['opensearch']}").rstrip("/")


def _require_knn() -> bool:
    return os.environ.get("EPISTREAM_REQUIRE_KNN", "1") not in ("0", "false", "no")


def _java() -> str:
    if os.environ.get("EPISTREAM_JAVA"):
        return os.environ["EPISTREAM_JAVA"]
    if os.environ.get("JAVA_HOME"):
        return str(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    return shutil.which("java") or "java"


def _javac() -> str:
    j = Path(_java())
    cand = j.with_name("javac")
    return str(cand) if cand.exists() else (shutil.which("javac") or "javac")


@contextlib.contextmanager
def _lock():
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# --------------------------------------------------------------------------- deps


def _digest(*files: Path) -> str:
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _mvn_copy(pom: Path, outdir: Path) -> None:
    mvn = shutil.which("mvn")
    if not mvn:
        raise ServiceError("mvn not found on PATH (Maven 3.8+ is needed for `deps`)")
    cmd = [
        mvn,
        "-B",
        "-ntp",
        "-q",
        "-f",
        str(pom),
        "dependency:copy-dependencies",
        "-DincludeScope=runtime",
        f"-DoutputDirectory={outdir}",
    ]  # absolute: relative = pom dir
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise ServiceError(f"maven failed for {pom}:\n{r.stdout[-4000:]}")


def _deps_kafka() -> None:
    stamp = KAFKA_OUT / ".stamp"
    want = _digest(KAFKA_POM)
    if stamp.exists() and stamp.read_text() == want and any((KAFKA_OUT / "lib").glob("kafka_2.13-*.jar")):
        return
    t0 = time.monotonic()
    tmp = KAFKA_OUT / "lib.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    _mvn_copy(KAFKA_POM, tmp)
    shutil.rmtree(KAFKA_OUT / "lib", ignore_errors=True)
    tmp.rename(KAFKA_OUT / "lib")
    stamp.write_text(want)
    _say(f"kafka: jars resolved into {KAFKA_OUT / 'lib'} ({time.monotonic() - t0:.1f}s)")


def _deps_opensearch() -> None:
    stamp = OS_OUT / ".stamp"
    want = _digest(OS_POM, OS_LAUNCHER)
    if stamp.exists() and stamp.read_text() == want and (OS_OUT / "classes" / "EmbeddedOpenSearch.class").exists():
        return
    t0 = time.monotonic()
    tmp = OS_OUT / "lib.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    _mvn_copy(OS_POM, tmp)
    # the k-NN artifact is a plugin zip (no native libs): unpack its jars into knn/
    knn = OS_OUT / "knn"
    shutil.rmtree(knn, ignore_errors=True)
    knn.mkdir(parents=True)
    zips = list(tmp.glob("*.zip"))
    for z in zips:
        with zipfile.ZipFile(z) as zf:
            zf.extractall(knn)
        z.unlink()
    if not zips:
        _say("opensearch: WARNING no k-NN zip resolved; knn_vector will be unavailable")
    shutil.rmtree(OS_OUT / "lib", ignore_errors=True)
    tmp.rename(OS_OUT / "lib")
    classes = OS_OUT / "classes"
    shutil.rmtree(classes, ignore_errors=True)
    classes.mkdir(parents=True)
    r = subprocess.run(
        [_javac(), "--release", "17", "-nowarn", "-cp", f"{OS_OUT / 'lib'}/*", "-d", str(classes), str(OS_LAUNCHER)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if r.returncode != 0:
        raise ServiceError(f"javac failed for {OS_LAUNCHER}:\n{r.stdout[-4000:]}")
    stamp.write_text(want)
    _say(f"opensearch: jars resolved + launcher compiled into {OS_OUT} ({time.monotonic() - t0:.1f}s)")


def deps() -> None:
    """Resolve both classpaths (in parallel) and compile the launcher. No-op when up to date."""
    for d in (KAFKA_OUT, OS_OUT):
        d.mkdir(parents=True, exist_ok=True)
    errors: list = []

    def run(fn):
        try:
            fn()
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(f,)) for f in (_deps_kafka, _deps_opensearch)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise ServiceError("; ".join(str(e) for e in errors))


# --------------------------------------------------------------------------- health checks


def _split_hostport(hp: str) -> tuple:
    hp = hp.split(",")[0].strip()
    if "://" in hp:
        hp = hp.split("://", 1)[1]
    host, _, port = hp.rpartition(":")
    return host or "127.0.0.1", int(port)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed by broker")
        buf += chunk
    return buf


def kafka_metadata(bootstrap: str | None = None, timeout: float = 3.0) -> dict:
    """One real Kafka protocol round trip: Metadata v4 (all topics). Raises on failure."""
    host, port = _split_hostport(bootstrap or kafka_bootstrap())
    client_id = b"epistream-services"
    corr = 7
    header = struct.pack(">hhih", 3, 4, corr, len(client_id)) + client_id
    body = struct.pack(">i?", -1, False)  # topics = null (all), allow_auto_topic_creation
    req = header + body
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(struct.pack(">i", len(req)) + req)
        size = struct.unpack(">i", _recv_exact(s, 4))[0]
        data = _recv_exact(s, size)
    pos = 0

    def take(fmt):
        nonlocal pos
        vals = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return vals if len(vals) > 1 else vals[0]

    def string():
        nonlocal pos
        n = take(">h")
        if n < 0:
            return None
        s = data[pos : pos + n].decode()
        pos += n
        return s

    if take(">i") != corr:
        raise ConnectionError("bad correlation id in Metadata response")
    take(">i")  # throttle_time_ms
    brokers = []
    for _ in range(take(">i")):
        node_id = take(">i")
        bhost = string()
        bport = take(">i")
        string()  # rack
        brokers.append((node_id, bhost, bport))
    cluster_id = string()
    controller = take(">i")
    ntopics = take(">i")
    if not brokers:
        raise ConnectionError("Metadata response lists no brokers")
    return {"brokers": brokers, "cluster_id": cluster_id, "controller_id": controller, "topics": ntopics}


def kafka_group_coordinator(bootstrap: str | None = None, timeout: float = 3.0) -> int:
    """FindCoordinator v0 for a probe group: the Kafka error code (0 = consumer groups work).

    Right after a broker starts, Metadata already answers while the offsets topic is still
    being created; a consumer group (every worker, every lag query) then fails with
    COORDINATOR_NOT_AVAILABLE (15). "Up" must mean groups work too.
    """
    host, port = _split_hostport(bootstrap or kafka_bootstrap())
    client_id = b"epistream-services"
    group = b"epistream-services-probe"
    corr = 11
    header = struct.pack(">hhih", 10, 0, corr, len(client_id)) + client_id
    req = header + struct.pack(">h", len(group)) + group
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(struct.pack(">i", len(req)) + req)
        size = struct.unpack(">i", _recv_exact(s, 4))[0]
        data = _recv_exact(s, size)
    got_corr, error_code = struct.unpack_from(">ih", data, 0)
    if got_corr != corr:
        raise ConnectionError("bad correlation id in FindCoordinator response")
    return int(error_code)


def kafka_healthy(bootstrap: str | None = None) -> tuple:
    try:
        md = kafka_metadata(bootstrap)
        error = kafka_group_coordinator(bootstrap)
    except (OSError, struct.error, ValueError) as e:
        return False, f"{type(e).__name__}: {e}"
    if error != 0:
        return False, f"metadata ok, group coordinator not available yet (error {error})"
    return True, f"metadata ok, group coordinator ok, cluster_id={md['cluster_id']} brokers={md['brokers']}"


def _http(method: str, url: str, timeout: float = 5.0) -> tuple:
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def knn_available(url: str | None = None) -> bool:
    try:
        return _http("GET", f"{url or opensearch_url()}/_plugins/_knn/stats")[0] == 200
    except OSError:
        return False


def opensearch_healthy(url: str | None = None, require_knn: bool | None = None) -> tuple:
    url = (url or opensearch_url()).rstrip("/")
    require_knn = _require_knn() if require_knn is None else require_knn
    try:
        code, body = _http("GET", f"{url}/_cluster/health?wait_for_status=yellow&timeout=2s")
    except OSError as e:
        return False, f"{type(e).__name__}: {e}"
    if code != 200:
        return False, f"_cluster/health HTTP {code}"
    status = json.loads(body).get("status")
    if status not in ("yellow", "green"):
        return False, f"cluster status {status}"
    knn = knn_available(url)
    if require_knn and not knn:
        return False, f"cluster {status} but _plugins/_knn/stats != 200 (k-NN plugin not loaded)"
    return True, f"cluster {status}, k-NN {'loaded' if knn else 'NOT loaded'}"


def healthy(name: str) -> tuple:
    return kafka_healthy() if name == "kafka" else opensearch_healthy()


# --------------------------------------------------------------------------- processes


def _pidfile(name: str) -> Path:
    return PIDS / f"{name}.pid"


_MARKERS = {"kafka": "kafka.Kafka", "opensearch": "EmbeddedOpenSearch"}


def _read_pid(name: str) -> int | None:
    """pid from our pid file if that process is alive and is really our JVM."""
    try:
        pid = int(_pidfile(name).read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except (OSError, ValueError):
        return None
    return pid if _MARKERS[name] in cmdline else None


def _port_owner(port: int) -> str:
    """Best effort: 'pid N (cmd...)' of the process listening on 127.0.0.1/0.0.0.0:port."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for ln in lines:
            f = ln.split()
            if len(f) > 9 and f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f[9])
    if not inodes:
        return "unknown process"
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            for fd in (p / "fd").iterdir():
                link = os.readlink(fd)
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:160]
                    return f"pid {p.name} ({cmd})"
        except OSError:
            continue
    return "a process this user cannot inspect"


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return False
            raise


def _tail(path: Path, n: int = 60) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(lines[-n:])


def _kafka_cluster_id(data: Path | None = None) -> str:
    """The cluster id of the log dirs at ``data`` when they are formatted, else a new one."""
    meta = data / "meta.properties" if data is not None else None
    if meta is not None and meta.is_file():
        for line in meta.read_text().splitlines():
            if line.startswith("cluster.id="):
                return line.split("=", 1)[1].strip()
    while True:  # same rule as org.apache.kafka.common.Uuid.randomUuid: no leading '-'
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not cid.startswith("-"):
            return cid


def _kafka_properties(run: Path, p: dict) -> str:
    return f"""process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{p["kafka_controller"]}
listeners=PLAINTEXT://127.0.0.1:{p["kafka"]},CONTROLLER://127.0.0.1:{p["kafka_controller"]}
advertised.listeners=PLAINTEXT://127.0.0.1:{p["kafka"]}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs={DATA / "kafka"}
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
"""


def _spawn(name: str, cmd: list, cwd: Path) -> subprocess.Popen:
    LOGS.mkdir(parents=True, exist_ok=True)
    PIDS.mkdir(parents=True, exist_ok=True)
    with open(LOGS / f"{name}.log", "ab") as log:
        log.write(f"\n===== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(cmd)}\n".encode())
        log.flush()
        proc = subprocess.Popen(
            cmd, cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    _pidfile(name).write_text(f"{proc.pid}\n")
    return proc


def _start_kafka(run: Path, p: dict) -> subprocess.Popen:
    data = DATA / "kafka"
    data.mkdir(parents=True, exist_ok=True)  # kept: topics and group offsets survive a restart
    props = run / "server.properties"
    props.write_text(_kafka_properties(run, p))
    cp = f"{KAFKA_OUT / 'lib'}/*"
    log4j = f"-Dlog4j2.configurationFile=file:{KAFKA_LOG4J}"
    LOGS.mkdir(parents=True, exist_ok=True)
    with open(LOGS / "kafka.log", "wb") as log:  # fresh log per `up`
        r = subprocess.run(
            [
                _java(),
                "-Xmx256m",
                log4j,
                "-cp",
                cp,
                "kafka.tools.StorageTool",
                "format",
                "-t",
                _kafka_cluster_id(data),
                "-c",
                str(props),
                "--ignore-formatted",  # log dirs kept from an earlier `up` are used as they are
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    if r.returncode != 0:
        raise ServiceError(f"kafka StorageTool format failed:\n{_tail(LOGS / 'kafka.log')}")
    return _spawn("kafka", [_java(), *KAFKA_JVM, log4j, "-cp", cp, "kafka.Kafka", str(props)], run)


def _start_opensearch(run: Path, p: dict) -> subprocess.Popen:
    home = DATA / "opensearch"  # kept: its data/ holds the indices across restarts
    (home / "config").mkdir(parents=True, exist_ok=True)
    shutil.copy(OS_LOG4J, home / "config" / "log4j2.properties")
    (LOGS / "opensearch.log").unlink(missing_ok=True)
    cp = ":".join([str(OS_OUT / "classes"), f"{OS_OUT / 'lib'}/*", f"{OS_OUT / 'knn'}/*"])
    return _spawn(
        "opensearch",
        [
            _java(),
            *OS_JVM,
            f"-Djava.io.tmpdir={run}",
            "-cp",
            cp,
            "EmbeddedOpenSearch",
            str(home),
            str(p["opensearch"]),
            str(p["opensearch_transport"]),
        ],
        run,
    )


def _stop(name: str, timeout: float = 30.0) -> bool:
    pid = _read_pid(name)
    _pidfile(name).unlink(missing_ok=True)
    if pid is None:
        return False
    try:
        pgid = os.getpgid(pid)
    except ProcessLookupError:
        return False
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reap if it is our child (library use)
        time.sleep(0.2)
    _say(f"{name}: did not exit within {timeout:.0f}s of SIGTERM, sending SIGKILL")
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    return True


def _timeout(name: str) -> float:
    # ~3x the slowest start seen on a loaded 2-core box (Kafka 23 s, OpenSearch 34 s); idle: 8 s / 10 s.
    default = 90.0 if name == "kafka" else 120.0
    v = os.environ.get(f"EPISTREAM_{name.upper()}_START_TIMEOUT", "").strip()
    return float(v) if v else default


def wipe_data(names=SERVICES) -> list:
    """Delete what the named services stored (they must be stopped); returns the paths removed."""
    removed = []
    for name in names:
        path = DATA / name
        if path.exists():
            shutil.rmtree(path)
            removed.append(path)
    return removed


def up(only=SERVICES, wipe: bool = False) -> dict:
    """Start the named services unless ours are already running; wait until healthy.

    They keep what they stored across restarts (``DATA``) unless ``wipe``: a service that is
    started empties its data first (one already running is left alone).
    """
    only = tuple(only)
    deps()
    p = ports()
    with _lock():
        todo = []
        for name in only:
            if _read_pid(name) is not None:
                ok, why = healthy(name)
                if ok:
                    _say(f"{name}: already running (pid {_read_pid(name)}): {why}")
                    continue
                _say(f"{name}: our process (pid {_read_pid(name)}) is not healthy ({why}); restarting")
                _stop(name)
            _pidfile(name).unlink(missing_ok=True)
            todo.append(name)
        if not todo:
            return status(quiet=True)
        need = {"kafka": ("kafka", "kafka_controller"), "opensearch": ("opensearch", "opensearch_transport")}
        busy = [(k, p[k]) for n in todo for k in need[n] if not _port_free(p[k])]
        if busy:
            msg = "\n".join(f"  port {port} ({k}) is already in use by {_port_owner(port)}" for k, port in busy)
            raise ServiceError(
                "cannot start, ports busy:\n"
                + msg
                + "\n  -> a stale JVM from an earlier run? stop it (kill <pid>), or use other ports "
                "(EPISTREAM_KAFKA_PORT / EPISTREAM_OPENSEARCH_PORT), or reuse a healthy one via "
                "EPISTREAM_KAFKA_BOOTSTRAP / EPISTREAM_OPENSEARCH_URL"
            )
        # fresh run dir; drop old ones that no live service uses
        RUN_ROOT.mkdir(parents=True, exist_ok=True)
        live = {_read_state().get(f"{n}_run") for n in SERVICES if _read_pid(n) is not None}
        for old in RUN_ROOT.iterdir():
            if str(old) not in live:
                shutil.rmtree(old, ignore_errors=True)
        run = RUN_ROOT / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        run.mkdir()
        if wipe:
            for path in wipe_data(todo):
                _say(f"wiped {path}")
        t0 = time.monotonic()
        procs = {}
        try:
            if "opensearch" in todo:  # slowest first
                procs["opensearch"] = _start_opensearch(run, p)
            if "kafka" in todo:
                procs["kafka"] = _start_kafka(run, p)
        except Exception:
            for n in procs:
                _stop(n, timeout=10)
            raise
        state = _read_state()
        state.update({f"{n}_run": str(run) for n in procs})
        state.update({"ports": p})
        STATE.write_text(json.dumps(state, indent=1))
        _started_here.update(procs)
        _say(f"starting {', '.join(procs)} (run dir {run}, logs {LOGS})")
        pending = dict(procs)
        failed = []
        while pending:
            for n, proc in list(pending.items()):
                el = time.monotonic() - t0
                if proc.poll() is not None:
                    failed.append((n, f"process exited with code {proc.returncode} after {el:.1f}s"))
                    del pending[n]
                    continue
                ok, why = healthy(n)
                if ok:
                    _say(f"{n}: UP after {el:.1f}s (pid {proc.pid}): {why}")
                    del pending[n]
                elif el > _timeout(n):
                    failed.append((n, f"not healthy within {_timeout(n):.0f}s (last check: {why})"))
                    del pending[n]
            if pending:
                time.sleep(0.5)
        if failed:
            report = []
            for n, why in failed:
                report.append(
                    f"{n}: FAILED: {why}\n----- tail of {LOGS / (n + '.log')} -----\n"
                    f"{_tail(LOGS / (n + '.log'))}\n-----"
                )
            for n in procs:
                _stop(n, timeout=15)
                _started_here.discard(n)
            raise ServiceError("\n".join(report))
    return status(quiet=True)


def _read_state() -> dict:
    try:
        return json.loads(STATE.read_text())
    except (OSError, ValueError):
        return {}


def status(quiet: bool = False) -> dict:
    out = {}
    for n in SERVICES:
        ok, why = healthy(n)
        pid = _read_pid(n)
        where = kafka_bootstrap() if n == "kafka" else opensearch_url()
        out[n] = {"healthy": ok, "detail": why, "pid": pid, "address": where}
        if not quiet:
            print(f"{n:10s} {'UP  ' if ok else 'DOWN'} {where:26s} pid={pid if pid else '-':<8} {why}", flush=True)
    return out


def down() -> None:
    with _lock():
        for n in SERVICES:
            pid = _read_pid(n)
            if _stop(n):
                _say(f"{n}: stopped (pid {pid})")
            else:
                _say(f"{n}: not running")
            _started_here.discard(n)


# --------------------------------------------------------------------------- library API


def ensure_up(stop_at_exit: bool = True) -> dict:
    """Make Kafka and OpenSearch available; returns {'kafka': bootstrap, 'opensearch': url, 'knn': bool}.

    * EPISTREAM_KAFKA_BOOTSTRAP / EPISTREAM_OPENSEARCH_URL set -> use them, never start (must be healthy).
    * a healthy service already answers on the configured port -> reuse it.
    * otherwise start it (deps + up); with stop_at_exit, services started *by this call* are
      stopped when the interpreter exits.
    Raises ServiceError if a service cannot be made healthy (tests must fail, not skip).
    """
    missing = []
    for n, env in (("kafka", "EPISTREAM_KAFKA_BOOTSTRAP"), ("opensearch", "EPISTREAM_OPENSEARCH_URL")):
        ok, why = healthy(n)
        if ok:
            continue
        if os.environ.get(env):
            raise ServiceError(f"{n}: {env}={os.environ[env]} is set but not healthy: {why}")
        missing.append(n)
    if missing:
        before = set(_started_here)
        up(missing)
        if stop_at_exit and set(_started_here) - before:
            import atexit

            atexit.register(_stop_started_here)
    return {"kafka": kafka_bootstrap(), "opensearch": opensearch_url(), "knn": knn_available()}


def _stop_started_here() -> None:
    for n in list(_started_here):
        _stop(n)
        _started_here.discard(n)


# --------------------------------------------------------------------------- CLI


def main(argv: list) -> int:
    usage = "usage: services {deps|up [--wipe]|status|down}"
    wipe = argv[1:] == ["--wipe"] and argv[:1] == ["up"]
    if not (len(argv) == 1 or wipe) or argv[0] not in ("deps", "up", "status", "down"):
        print(usage, file=sys.stderr)
        return 2
    cmd = argv[0]
    try:
        if cmd == "deps":
            t0 = time.monotonic()
            deps()
            _say(f"deps ready ({time.monotonic() - t0:.1f}s)")
            return 0
        if cmd == "up":
            t0 = time.monotonic()
            up(wipe=wipe)
            _say(f"all services up ({time.monotonic() - t0:.1f}s incl. deps check)")
            _started_here.clear()  # CLI: leave them running
            st = status()
            return 0 if all(v["healthy"] for v in st.values()) else 1
        if cmd == "status":
            st = status()
            return 0 if all(v["healthy"] for v in st.values()) else 1
        down()
        return 0
    except ServiceError as e:
        _say(f"ERROR: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
