"""What the side-by-side runners share (run-peers, bench/impala-5528-run):
running a tool as a process of its own and taking the CPU it and the children it
waited for spent from the kernel, and a free loopback port."""
import os
import socket
import subprocess
import sys
import tempfile
import time

# glibc malloc's mmap and trim thresholds raised: a freed buffer stays in the
# heap for the next call, not returned to the kernel and faulted in again.
GLIBC_TUNED = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456"


def rusage_cpu(usage):
    return usage.ru_utime + usage.ru_stime


def run_measured(command, env=None, timeout=300):
    """Runs a command; returns (stdout, CPU seconds of it and the children it waited for).
    A failure ends the calling script, naming it and the command."""
    who = os.path.basename(sys.argv[0])
    # Output to files, not pipes: the process is reaped with wait4 (for its
    # rusage), so nothing would read a pipe while it runs.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True, env=dict(os.environ, **(env or {})))
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                sys.exit(f"{who}: {' '.join(command)} took more than {timeout} s")
            time.sleep(0.005)
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            sys.exit(f"{who}: {' '.join(command)} failed (exit {process.returncode}):\n{err.read()[-2000:]}")
        return out.read(), rusage_cpu(usage)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
