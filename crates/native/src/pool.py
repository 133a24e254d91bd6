# Cabrito's grading zygote (native/pool.rs). A pre-started interpreter that holds the harnesses
# (argv[2]: native/harness.py, argv[3]: native/merge_harness.py, argv[4]: native/script.py, each
# loaded here once, when a run first needs it, by pool.rs's BOOT, which ran this file: from the
# grader's cache of compiled code when it has this interpreter's, else compiled and sent back)
# and, once a run needs it, numpy; it forks one fresh child per run. It never reads a program,
# an input or a result: those travel on pipes between the grader and the child, which enters its
# own sandbox before it reads anything.
#
# The zygote runs as root in the sandbox the grader gave it (an empty network namespace, a
# private mount namespace whose read-only root holds only the interpreter, its libraries and
# numpy), with its control socket (SOCK_SEQPACKET) as fd 3. Messages from the grader:
#   "run ID UID AS CPU FSIZE NOFILE NPROC MODE NUMPY" with four fds (SCM_RIGHTS): the child's stdin,
#                                          stdout, stderr and result channel; MODE is grade, merge or
#                                          script (which harness the child runs), or probe (the
#                                          child checks what the isolation probe checks: see
#                                          `probe`); NUMPY 1 loads numpy first, so the child finds
#                                          it imported
#   "numpy"            load numpy and the grading harness now (a worker warming up)
# Messages to the grader:
#   "ready"            once, when the zygote listens (harnesses and numpy are loaded later, on demand)
#   "started ID PID"   the child is forked (it is its own process group)
#   "failed ID WHY"    no child was started
#   "exited PID STATUS"  a child ended (the raw wait status)
#   "code WORD BLOB"   pool.py or a harness (WORD: pool, grade, merge, script) as compiled here:
#                      sys.version, a NUL, its marshal dump (native/code_cache.rs keeps it)
# The zygote exits when the control socket closes (the grader is gone), killing its children.
#
# A child, before it reads its stdin: becomes its own process group; moves its four fds to 0-3
# and closes every other fd (the control socket among them); enters new mount, network and IPC
# namespaces with a fresh tmpfs /tmp (its working directory); sets its rlimits; drops to its
# private uid and gid with no supplementary groups; sets no_new_privs and a death signal; restores
# the default signal handlers. Only then does it run its harness.

# Only C modules and what the standard start already loaded: the zygote's start is part of every
# command's fixed cost, and the Python layers over them (ctypes, socket, selectors, signal) import
# much more than the few calls used here.
import _ctypes
import _signal
import _socket
import gc
import os
import resource
import select
import sys
import types

# Python's advice for forking without exec: the collector off in the parent (its collections leave
# freed holes that a child's allocations fill, a copied page each), `gc.freeze()` before each fork
# (a child's collections never write to what it shares with the zygote), on again in the child.
gc.disable()

if len(sys.argv) > 1 and sys.argv[1]:
    sys.path.append(sys.argv[1])

# Each harness is compiled the first time a run needs it (a merge job never compiles the grading
# harness), before the fork, so every later child finds it ready.
LOADED = {}


def harness(mode):
    if mode == b"probe":
        return None
    code = LOADED.get(mode)
    if code is None:
        if mode == b"grade":
            code = types.ModuleType("cabrito_harness")
            exec(load(mode, sys.argv[2], "harness.py"), code.__dict__)
        elif mode == b"merge":
            code = load(mode, sys.argv[3], "merge_harness.py")
            # What merge_harness.py imports, imported once here rather than in every child.
            for name in ("_json", "_operator", "_struct"):
                __import__(name)
        else:
            code = load(mode, sys.argv[4], "script.py")
        LOADED[mode] = code
    return code


def send_fresh(ctl):
    """The code compiled here (not found in the grader's cache), for the grader to keep."""
    while FRESH:
        try:
            ctl.send(b"code " + FRESH.pop())
        except OSError:
            pass


def load_numpy():
    """Imported once here, so every child forked afterwards holds it."""
    if "numpy" not in sys.modules:
        try:
            import numpy  # noqa: F401
        except BaseException:
            pass



class CInt(_ctypes._SimpleCData):
    _type_ = "i"


class LibcFunction(_ctypes.CFuncPtr):
    """A libc function returning a C int and keeping errno (as ctypes.CDLL(None, use_errno=True))."""

    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = CInt


class Libc:
    _handle = _ctypes.dlopen(None, os.RTLD_NOW | os.RTLD_LOCAL)

    def __getattr__(self, name):
        fn = LibcFunction((name, self))
        setattr(self, name, fn)
        return fn


LIBC = Libc()
CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 2
MS_NODEV = 4
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
MODES = (b"grade", b"merge", b"script", b"probe")
TMPFS = [p for p in (b"/tmp", b"/var/tmp", b"/dev/shm") if os.path.isdir(p)]
LIMITS = (
    resource.RLIMIT_AS,
    resource.RLIMIT_CPU,
    resource.RLIMIT_FSIZE,
    resource.RLIMIT_NOFILE,
    resource.RLIMIT_NPROC,
)


def check(rc, what):
    if rc != 0:
        e = _ctypes.get_errno()
        raise OSError(e, what + ": " + os.strerror(e))


def enter(uid, limits):
    check(LIBC.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC), "unshare")
    for i, p in enumerate(TMPFS):
        rc = LIBC.mount(b"tmpfs", p, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=64m,mode=1777")
        if i == 0:
            check(rc, "mount /tmp")
    os.chdir("/tmp")
    for res, value in zip(LIMITS, limits):
        hard = value + 1 if res == resource.RLIMIT_CPU else value
        resource.setrlimit(res, (value, hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    check(LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    check(LIBC.prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0), "pdeathsig")
    if os.getppid() == 1:
        os._exit(71)


def probe():
    """The isolation probe (native/sandbox.rs `PROBE`) run by a child in its sandbox: numpy's folder
    is readable and the interpreter executable by the run's uid (a run started afresh execs it)."""
    os.stat(os.path.join(sys.argv[1], "numpy", "__init__.py"))
    if not os.access(sys.executable, os.X_OK):
        raise PermissionError("the interpreter is not executable by the run's uid")
    os.write(3, b"ok")


def exit_code(e):
    """The exit status `python -c` gives a SystemExit."""
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code & 0xFF
    try:
        sys.stderr.write(str(e.code) + "\n")
    except BaseException:
        pass
    return 1


def child(fds, uid, limits, mode):
    gc.enable()
    try:
        os.setpgid(0, 0)
        _signal.set_wakeup_fd(-1)
        for sig in (_signal.SIGCHLD, _signal.SIGTERM, _signal.SIGPIPE):
            _signal.signal(sig, _signal.SIG_DFL)
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(4, 1 << 20)
        enter(uid, limits)
    except BaseException as e:
        try:
            os.write(2, ("cabrito pool: the sandbox could not be entered: %r\n" % (e,)).encode())
        finally:
            os._exit(70)
    code = 0
    try:
        if mode == b"grade":
            LOADED[mode].main()
        elif mode == b"merge":
            exec(LOADED[mode], {"__name__": "cabrito_merge_harness"})
        elif mode == b"probe":
            probe()
        else:
            exec(LOADED[mode], {"__name__": "cabrito_script"})
    except SystemExit as e:
        code = exit_code(e)
    except BaseException:
        import traceback

        try:
            traceback.print_exc()
        except BaseException:
            pass
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(code)


FD_SIZE = 4
MAX_FDS = 8


def recv_fds(sock):
    """One message and the fds attached to it (socket.recv_fds without the socket module)."""
    msg, ancillary, _, _ = sock.recvmsg(4096, _socket.CMSG_LEN(MAX_FDS * FD_SIZE))
    fds = []
    for level, kind, data in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            usable = len(data) - len(data) % FD_SIZE
            fds += [int.from_bytes(data[i : i + FD_SIZE], sys.byteorder, signed=True) for i in range(0, usable, FD_SIZE)]
    return msg, fds


def main():
    ctl = _socket.socket(fileno=3)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    _signal.set_wakeup_fd(wake_w)
    _signal.signal(_signal.SIGCHLD, lambda s, f: None)
    poll = select.poll()
    poll.register(3, select.POLLIN)
    poll.register(wake_r, select.POLLIN)
    children = set()
    ctl.send(b"ready")
    send_fresh(ctl)

    def reap():
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                children.clear()
                return
            if pid == 0:
                return
            children.discard(pid)
            ctl.send(b"exited %d %d" % (pid, status))

    def serve(msg, fds):
        words = msg.split()
        if words == [b"numpy"]:
            for fd in fds:
                os.close(fd)
            load_numpy()
            harness(b"grade")
            send_fresh(ctl)
            return
        if len(words) != 10 or words[0] != b"run" or len(fds) != 4 or words[8] not in MODES:
            for fd in fds:
                os.close(fd)
            ctl.send(b"failed " + (words[1] if len(words) > 1 else b"?") + b" bad request")
            return
        rid = words[1]
        try:
            uid = int(words[2])
            limits = [int(w) for w in words[3:8]]
            mode = words[8]
            if words[9] == b"1":
                load_numpy()
            harness(mode)
            if uid < 1000:
                raise ValueError("uid below 1000")
            send_fresh(ctl)
            sys.stdout.flush()
            sys.stderr.flush()
            # What the zygote holds stays out of the children's garbage collections, so their
            # pages stay shared (the zygote itself collects nothing: its collector is off).
            gc.freeze()
            pid = os.fork()
        except BaseException as e:
            for fd in fds:
                os.close(fd)
            ctl.send(b"failed " + rid + b" " + repr(e).encode()[:300])
            return
        if pid == 0:
            child(fds, uid, limits, mode)
        for fd in fds:
            os.close(fd)
        children.add(pid)
        ctl.send(b"started %s %d" % (rid, pid))

    while True:
        for fd, _ in poll.poll():
            if fd == wake_r:
                try:
                    while os.read(wake_r, 512):
                        pass
                except BlockingIOError:
                    pass
                reap()
                continue
            try:
                msg, fds = recv_fds(ctl)
            except InterruptedError:
                continue
            if not msg:
                for pid in list(children):
                    try:
                        os.killpg(pid, _signal.SIGKILL)
                    except OSError:
                        pass
                os._exit(0)
            serve(msg, fds)
        reap()


main()
