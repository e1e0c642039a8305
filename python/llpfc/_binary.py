"""Finding the llpfc binary and running it.

Every call goes through :func:`call`: the command's progress (its standard
error) is streamed to ``sys.stderr`` line by line as it comes, its standard
output is kept, and a non-zero exit becomes an exception carrying the
binary's own message — exit status 2 (bad flags or input) a ``ValueError``,
any other a ``RuntimeError`` — so that a notebook user reads the same words
as a shell user.
"""

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

__all__ = ["LLPFCError", "find_binary", "call"]

ENV_BINARY = "LLPFC_BINARY"

_built = {}  # checkout root -> path of the binary built from it in this process
_lock = threading.Lock()


class LLPFCError(Exception):
    """Mixin of the exceptions raised for a failed llpfc command.

    Attributes: ``returncode`` (the exit status), ``message`` (what the binary
    printed on standard error, progress lines left out), ``args_`` (the
    command line).
    """

    returncode = None
    message = ""
    args_ = ()


class LLPFCValueError(LLPFCError, ValueError):
    """Bad flags or input (exit status 2)."""


class LLPFCRuntimeError(LLPFCError, RuntimeError):
    """The command failed (exit status 1, or killed by a signal)."""


def _checkout_root():
    """The llpfc checkout this package sits in (python/llpfc/..), or None."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    gomod = os.path.join(root, "go.mod")
    try:
        with open(gomod, encoding="utf-8") as f:
            first = f.readline().split()
    except OSError:
        return None
    if first[:2] == ["module", "github.com/llpfc/llpfc"] and os.path.isdir(os.path.join(root, "cmd", "llpfc")):
        return root
    return None


def _build(root):
    """Builds ./cmd/llpfc of the checkout root with `go build` (Go's build
    cache makes a rebuild of unchanged sources quick) into a per-checkout
    cache folder, atomically, and returns its path."""
    go = shutil.which("go") or ("/usr/local/go/bin/go" if os.access("/usr/local/go/bin/go", os.X_OK) else None)
    if go is None:
        raise FileNotFoundError(
            "llpfc: no binary: none given (binary=…), $%s unset, no llpfc on PATH, and no Go toolchain "
            "to build it from the checkout %s (install Go ≥ 1.26 or pass binary=PATH)" % (ENV_BINARY, root))
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    tag = hashlib.sha256(root.encode()).hexdigest()[:12]
    outdir = os.path.join(cache, "llpfc", "bin-" + tag)
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "llpfc")
    fd, tmp = tempfile.mkstemp(prefix=".llpfc-build-", dir=outdir)
    os.close(fd)
    print("llpfc: building the binary from %s (go build ./cmd/llpfc)" % root, file=sys.stderr, flush=True)
    env = dict(os.environ, CGO_ENABLED="0")
    proc = subprocess.run([go, "build", "-o", tmp, "./cmd/llpfc"], cwd=root, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise RuntimeError("llpfc: go build ./cmd/llpfc in %s failed:\n%s" % (root, proc.stdout))
    os.replace(tmp, out)
    return out


def find_binary(binary=None):
    """The llpfc binary to run: ``binary`` when given, else ``$LLPFC_BINARY``,
    else ``llpfc`` on ``PATH``, else one built with ``go build`` from the
    checkout this package sits in (once per process)."""
    for cand, what in ((binary, "binary="), (os.environ.get(ENV_BINARY), "$" + ENV_BINARY)):
        if cand:
            path = shutil.which(cand) if os.sep not in cand else cand
            if not path or not os.access(path, os.X_OK):
                raise FileNotFoundError("llpfc: %s %s is not an executable file" % (what, cand))
            return path
    on_path = shutil.which("llpfc")
    if on_path:
        return on_path
    root = _checkout_root()
    if root is None:
        raise FileNotFoundError(
            "llpfc: no binary: pass binary=PATH, set $%s, or put llpfc on PATH "
            "(go build -o llpfc ./cmd/llpfc in the checkout)" % ENV_BINARY)
    with _lock:
        if root not in _built:
            _built[root] = _build(root)
        return _built[root]


def _die_with_parent():
    """Child set-up: on Linux, the binary gets SIGTERM if this Python process
    dies (even by SIGKILL), so that it stops and its atomic writes leave
    nothing half-written."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except Exception:  # not Linux: nothing to do
        pass


def error_message(command, lines):
    """What the binary said about its failure, without the progress lines
    before it: a flag the parser refused (the lines before its usage text),
    or the last "llpfc COMMAND: …" line and what follows it."""
    for i, line in enumerate(lines):
        if line.startswith("Usage: llpfc"):
            return "".join(lines[:i]).strip()
    prefix = "llpfc %s: " % command
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith(prefix):
            return "".join(lines[i:]).strip()
    return "".join(lines[-5:]).strip()


def call(binary, args, echo=True, cwd=None):
    """Runs ``binary args…``, streaming its standard error to ``sys.stderr``
    (when ``echo``), and returns its standard output. A non-zero exit raises
    :class:`LLPFCValueError` (status 2) or :class:`LLPFCRuntimeError`.

    On KeyboardInterrupt (a notebook's "interrupt"), the binary is sent SIGINT
    and waited for — it stops at once and its writes are atomic — and the
    interrupt is raised again.
    """
    cmd = [binary] + [str(a) for a in args]
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                            preexec_fn=_die_with_parent if os.name == "posix" else None)
    err_lines = []

    def pump():
        for line in proc.stderr:
            err_lines.append(line)
            if echo:
                sys.stderr.write(line)
                sys.stderr.flush()

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        out = proc.stdout.read()
        proc.wait()
    except BaseException:
        _stop(proc)
        raise
    finally:
        t.join(timeout=10)
        proc.stdout.close()
        proc.stderr.close()
    if proc.returncode != 0:
        msg = error_message(cmd[1] if len(cmd) > 1 else "", err_lines)
        cls = LLPFCValueError if proc.returncode == 2 else LLPFCRuntimeError
        e = cls(msg or "llpfc exited with status %d" % proc.returncode)
        e.returncode, e.message, e.args_ = proc.returncode, msg, tuple(cmd)
        raise e
    return out


def _stop(proc):
    """Interrupts the binary as a terminal's Ctrl-C would, then waits."""
    if proc.poll() is not None:
        return
    try:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    except Exception:
        proc.kill()
        proc.wait()


def last_json_line(out):
    """The JSON object a command printed last with --json."""
    import json
    for line in reversed(out.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("llpfc printed no JSON result; its output was:\n" + out)
