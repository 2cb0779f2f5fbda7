"""The chess package on a Dask cluster: N synthetic games as Parquet
partitions, evaluated by the package's Python module (`evaluate_arrow`) on W
worker processes, checked against one process. See README.md.

Every wait is bounded and every process this script starts is stopped by it;
the cluster it starts listens on 127.0.0.1 only.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import chess_cases

HERE = Path(__file__).resolve().parent


def evaluate_partition(src, dst, policy):
    """One task: facts Parquet in, verdicts Parquet out, written exactly once.

    Runs on a worker. The verdicts go to a temporary name first and are then
    hard-linked to `dst`, which fails if `dst` exists: a partition whose task
    ran twice (its worker died after writing, before reporting) is written by
    the first run only, and never seen half-written.
    """
    import uuid

    import fide_laws_chess

    t0, cpu0 = time.perf_counter(), time.process_time()
    if os.path.exists(dst):
        return {"dst": dst, "written": False, "seconds": 0.0, "cpu_seconds": 0.0}
    facts = pq.read_table(src, read_dictionary=["predicate"]).combine_chunks()
    # One batch: a case's rows must not be split between two calls.
    batch = facts.to_batches()[0] if facts.num_rows else pa.RecordBatch.from_pylist([], facts.schema)
    verdicts = fide_laws_chess.evaluate_arrow(batch, policy, threads=1)
    t1 = time.perf_counter()
    tmp = f"{dst}.tmp-{uuid.uuid4().hex}"
    pq.write_table(pa.Table.from_batches([verdicts]), tmp)
    try:
        os.link(tmp, dst)
        written = True
    except FileExistsError:
        written = False
    finally:
        os.unlink(tmp)
    sections = verdicts.column("section")
    return {
        "dst": dst,
        "written": written,
        "cases": len(set(batch.column("case").to_pylist())),
        "errors": sum(1 for s in sections.to_pylist() if s == "error"),
        "evaluate_seconds": t1 - t0,
        "seconds": time.perf_counter() - t0,
        # The worker process's CPU time (pyarrow's IO threads included).
        "cpu_seconds": time.process_time() - cpu0,
        "pid": os.getpid(),
    }


def write_partition(args):
    seed, first, count, path, malformed = args
    if not path.exists():
        tmp = path.with_suffix(f".tmp-{os.getpid()}")
        pq.write_table(pa.Table.from_batches([chess_cases.partition(seed, first, count, malformed)]), tmp)
        os.replace(tmp, path)
    return path


def write_cases(root, n, partitions, seed, malformed):
    """The facts partitions, reused when a previous run wrote the same ones."""
    facts = root / "facts"
    manifest = {"cases": n, "partitions": partitions, "seed": seed, "malformed": malformed, "layout": 1}
    mpath = facts / "manifest.json"
    if not (mpath.exists() and json.loads(mpath.read_text()) == manifest):
        shutil.rmtree(facts, ignore_errors=True)
    facts.mkdir(parents=True, exist_ok=True)
    size = -(-n // partitions)
    jobs = []
    for k in range(partitions):
        first = k * size
        count = min(size, n - first)
        if count <= 0:
            break
        jobs.append((seed, first, count, facts / f"part-{k:05d}.parquet", tuple(m for m in malformed if first <= m < first + count)))
    with Pool(min(len(jobs), os.cpu_count() or 1)) as pool:
        paths = pool.map(write_partition, jobs)
    mpath.write_text(json.dumps(manifest))
    return paths


class Cluster:
    """A scheduler and W workers on 127.0.0.1, each its own process."""

    def __init__(self, root, workers):
        self.root = root
        self.file = root / "scheduler.json"
        self.file.unlink(missing_ok=True)
        self.procs = []
        self.log = open(root / "cluster.log", "w")
        dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
        self.procs.append(
            subprocess.Popen(
                dask + ["--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(self.file)],
                stdout=self.log,
                stderr=subprocess.STDOUT,
            )
        )
        deadline = time.monotonic() + 60
        while not self.file.exists():
            if time.monotonic() > deadline or self.procs[0].poll() is not None:
                raise RuntimeError(f"the scheduler did not start; see {root / 'cluster.log'}")
            time.sleep(0.1)
        worker = [sys.executable, "-m", "distributed.cli.dask_worker"]
        for k in range(workers):
            self.procs.append(
                subprocess.Popen(
                    worker
                    + ["--scheduler-file", str(self.file), "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny"]
                    + ["--no-dashboard", "--memory-limit", "0", "--death-timeout", "60", "--name", f"worker-{k}"],
                    stdout=self.log,
                    stderr=subprocess.STDOUT,
                )
            )

    def worker_pids(self):
        return {p.pid for p in self.procs[1:] if p.poll() is None}

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        deadline = time.monotonic() + 20
        for p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
        self.log.close()


def kill_a_busy_worker(client, cluster, futures):
    """SIGKILLs one of this script's worker processes while it runs a
    partition and others are still pending; returns what it killed."""
    pids = client.run(os.getpid)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        done = sum(f.done() for f in futures)
        if done == len(futures):
            break
        if done >= 1:
            busy = {a: ts for a, ts in client.processing().items() if ts}
            for addr, tasks in busy.items():
                pid = pids.get(addr)
                if pid in cluster.worker_pids():
                    os.kill(pid, signal.SIGKILL)
                    return {"pid": pid, "address": addr, "in_flight": len(tasks), "done_before": done}
        time.sleep(0.02)
    raise RuntimeError("--kill-a-worker: no partition was in flight to kill a worker under; use more --cases")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=int, required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--partitions", type=int, default=None, help="default: about 20,000 games each, at least 4 per worker")
    ap.add_argument("--kill-a-worker", action="store_true")
    ap.add_argument("--policy", default="blocking", choices=["blocking", "propagating"])
    ap.add_argument("--seed", type=lambda s: int(s, 0), default=chess_cases.SEED)
    ap.add_argument("--dir", type=Path, default=HERE.parents[1] / "target/distributed")
    ap.add_argument("--scheduler", default=None, help="address of a running cluster (tcp://HOST:8786) instead of a local one")
    ap.add_argument("--no-check", action="store_true", help="skip the single-process run (for a cluster whose --dir only it sees)")
    a = ap.parse_args()
    if a.cases < 1:
        ap.error("--cases must be at least 1")
    if a.workers < 1 or (a.kill_a_worker and a.workers < 2):
        ap.error("--workers must be at least 1, and at least 2 with --kill-a-worker")
    if a.kill_a_worker and a.scheduler is not None:
        ap.error("--kill-a-worker kills a worker this script started; it cannot be used with --scheduler")
    partitions = a.partitions or max(4 * a.workers, -(-a.cases // 20_000))
    partitions = min(partitions, a.cases)
    root = a.dir.resolve()
    root.mkdir(parents=True, exist_ok=True)
    malformed = [a.cases // 2]

    t = time.perf_counter()
    paths = write_cases(root, a.cases, partitions, a.seed, malformed)
    print(f"cases: {a.cases} games in {len(paths)} Parquet partitions under {root / 'facts'} ({time.perf_counter() - t:.1f} s)")
    out = root / "verdicts"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()

    from dask.distributed import Client, wait

    cluster = None
    try:
        if a.scheduler:
            client = Client(a.scheduler, timeout=60)
        else:
            cluster = Cluster(root, a.workers)
            client = Client(scheduler_file=str(cluster.file), timeout=60)
            client.wait_for_workers(a.workers, timeout=120)
        workers = len(client.scheduler_info()["workers"])
        print(f"cluster: {workers} workers at {client.scheduler.address}")
        t0 = time.perf_counter()
        futures = [
            client.submit(evaluate_partition, str(p), str(out / p.name), a.policy, key=f"evaluate-{p.stem}", pure=False)
            for p in paths
        ]
        killed = kill_a_busy_worker(client, cluster, futures) if a.kill_a_worker else None
        done, pending = wait(futures, timeout=600 + a.cases / 500)
        if pending:
            raise RuntimeError(f"{len(pending)} partitions did not finish in time")
        results = client.gather(futures)
        seconds = time.perf_counter() - t0
        busy = sum(r["cpu_seconds"] for r in results)
        print(
            f"tasks: {busy:.1f} CPU-seconds in {seconds:.1f} s, {busy / seconds:.2f} CPUs busy on average "
            f"({a.cases / busy:,.0f} cases per CPU-second of the workers)"
        )
        if killed:
            print(
                f"killed worker process {killed['pid']} ({killed['address']}) with {killed['in_flight']} partition(s) "
                f"in flight after {killed['done_before']} of {len(paths)} were done; its partitions were rescheduled"
            )
        client.close()
    finally:
        if cluster:
            cluster.stop()

    # Every partition has its verdicts file; a worker killed while writing
    # may leave its temporary file, never a partial verdicts file.
    stale = [p for p in out.iterdir() if ".tmp-" in p.name]
    for p in stale:
        p.unlink()
    written = sorted(p.name for p in out.iterdir())
    if written != sorted(p.name for p in paths):
        raise SystemExit(f"verdict files {written} do not match the partitions")
    if stale:
        print(f"removed {len(stale)} temporary file(s) of a killed worker")

    errors = pq.read_table(out, filters=[("section", "=", "error")])
    msgs = errors.column("message").to_pylist()
    if [c for c in errors.column("case").to_pylist()] != malformed:
        raise SystemExit(f"expected exactly the malformed case {malformed} to fail, got {errors.column('case').to_pylist()}")
    print(f"malformed case {malformed[0]} failed alone: {msgs[0].splitlines()[1]}")

    if not a.no_check:
        import fide_laws_chess

        t1 = time.perf_counter()
        for p in paths:
            facts = pq.read_table(p, read_dictionary=["predicate"]).combine_chunks()
            single = pa.Table.from_batches([fide_laws_chess.evaluate_arrow(facts.to_batches()[0], a.policy, threads=1)])
            dist = pq.read_table(out / p.name)
            if not dist.equals(single):
                raise SystemExit(f"{p.name}: the cluster's verdicts differ from the single-process ones")
        single_s = time.perf_counter() - t1
        print(f"single process: {a.cases} cases in {single_s:.2f} s ({a.cases / single_s:,.0f} cases/s, including Parquet IO)")
        tail = "identical to single-process"
    else:
        tail = "not compared (--no-check)"
    print(f"distributed: {a.cases} cases on {workers} workers in {seconds:.2f} s ({a.cases / seconds:,.0f} cases/s); {tail}")


if __name__ == "__main__":
    main()
