"""Kinetoscope's PyTorch hook, put first on PYTHONPATH by `kinetoscope-cli collect --pytorch=...`.

Once the program imports torch, PyTorch's operators are recorded: by the observer library
(libkinetoscope_torch_observer.so beside the injection library, built against this torch: one
RecordFunction callback handing each operator to the injection, no text formatted on the
program's threads), else as NVTX ranges (torch.autograd.profiler.emit_nvtx). The collector turns
both into kineto's cpu_op events.
The user's own sitecustomize (next on sys.path) still runs, and their script is untouched.
Only the standard library is used here, and nothing in this file may stop the program:
every failure becomes a one-line message on stderr.
"""
import os
import sys

_MODE = os.environ.get("KINETOSCOPE_PYTORCH", "ops")
_HERE = os.path.dirname(os.path.abspath(__file__))
_OBSERVER = "libkinetoscope_torch_observer.so"
_state = {"torch_seen": False, "ours": None, "paused": False, "observer": None}


def _say(text):
    sys.stderr.write("kinetoscope: " + text + "\n")


def _chain_user_sitecustomize():
    """Runs the sitecustomize that this one shadows, as Python's site module would have."""
    import importlib.machinery
    import importlib.util

    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as error:  # a user file that raises must not stop the program
        if isinstance(error, SystemExit):
            raise
        _say("your sitecustomize (%s) raised %s: %s; the program continues without the rest of it"
             % (spec.origin, type(error).__name__, error))


class _Observer:
    """The observer library, started: records operators until paused."""

    def __init__(self, library):
        self._library = library

    def pause(self):
        self._library.kinetoscope_observer_pause(1)

    def resume(self):
        self._library.kinetoscope_observer_pause(0)


def _start_observer(torch):
    """The observer when it was built for this torch and the collector takes its operators, else None."""
    injection = os.environ.get("CUDA_INJECTION64_PATH", "")
    path = os.path.join(os.path.dirname(injection), _OBSERVER) if injection else ""
    if not path or not os.path.exists(path):
        return None  # not built (no torch where Kinetoscope was built): emit_nvtx, as documented
    import ctypes

    fallback = ": recording operators through emit_nvtx"
    try:
        library = ctypes.CDLL(path)
    except OSError as error:
        _say("the PyTorch observer does not load with torch %s (%s)%s" % (torch.__version__, error, fallback))
        return None
    library.kinetoscope_observer_torch_release.restype = ctypes.c_char_p
    built = library.kinetoscope_observer_torch_release().decode()
    release = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    if built != release:
        _say("the PyTorch observer was built for torch %s, this program imports %s%s"
             % (built, torch.__version__, fallback))
        return None
    library.kinetoscope_observer_start.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
    library.kinetoscope_observer_pause.argtypes = [ctypes.c_int]
    error = ctypes.create_string_buffer(512)
    started = library.kinetoscope_observer_start(injection.encode(), int(_MODE == "ops-shapes"), error, len(error))
    if started == 1:
        return None  # the collector asks for emit_nvtx (ops=nvtx, nvtx=cupti)
    if started != 0:
        _say("the PyTorch observer cannot start (%s)%s" % (error.value.decode(errors="replace"), fallback))
        return None
    return _Observer(library)


def _enter_emit_nvtx(torch):
    profiler = torch.autograd.profiler
    shapes = _MODE == "ops-shapes"
    try:
        ours = profiler.emit_nvtx(record_shapes=shapes)
    except TypeError:
        _say("torch %s is too old for emit_nvtx(record_shapes=...): recording operators without shapes"
             % torch.__version__)
        ours = profiler.emit_nvtx()
    # emit_nvtx synchronises the GPU first; at import time there is nothing to wait for,
    # and that call would create a CUDA context in processes that never use the GPU.
    synchronize = torch.cuda.synchronize
    torch.cuda.synchronize = lambda *args, **kwargs: None
    try:
        ours.__enter__()
    finally:
        torch.cuda.synchronize = synchronize
    _state["ours"] = ours
    _guard_user_profilers(torch, profiler)


def _mark_profiler_on(profiler):
    """Some ranges torch records only while a profiler is on (Dynamo's "Pregraph bytecode",
    AOTAutograd's "AOTDispatcher Runtime Wrapper Prologue"): they test this flag, which
    torch.profiler and emit_nvtx set and the observer must set too, for the same operators."""
    if hasattr(profiler, "_is_profiler_enabled"):
        profiler._is_profiler_enabled = True


def _guard_user_profilers(torch, profiler):
    """A script that enters emit_nvtx itself gets ours; torch.profiler pauses ours while it runs."""
    emit_nvtx = profiler.emit_nvtx
    original_enter, original_exit = emit_nvtx.__enter__, emit_nvtx.__exit__

    def enter(self):
        if self is _state["ours"]:
            return original_enter(self)
        _say("the program enters emit_nvtx itself; the collector's (--pytorch=%s) is already on, "
             "so this one does nothing" % _MODE)
        return self

    def exit(self, *exc):
        if self is _state["ours"]:
            return original_exit(self, *exc)
        return False

    emit_nvtx.__enter__, emit_nvtx.__exit__ = enter, exit

    # Only one PyTorch profiler can be on per thread: ours steps aside for torch.profiler.
    enable, disable = getattr(profiler, "_enable_profiler", None), getattr(profiler, "_disable_profiler", None)
    if enable is None or disable is None:
        return

    def enable_kineto(*args, **kwargs):
        if _state["observer"] is not None and not _state["paused"]:
            _say("torch.profiler starts: PyTorch op ranges pause until it stops")
            _state["observer"].pause()
            _state["paused"] = True
        elif _state["ours"] is not None and not _state["paused"]:
            _say("torch.profiler starts: PyTorch op ranges pause until it stops")
            disable()
            _state["paused"] = True
        return enable(*args, **kwargs)

    def disable_kineto(*args, **kwargs):
        result = disable(*args, **kwargs)
        if _state["paused"] and _state["observer"] is not None:
            _state["paused"] = False
            _state["observer"].resume()
        elif _state["paused"]:
            _state["paused"] = False
            _state["ours"].entered = False
            _enter_again()
        return result

    def _enter_again():
        synchronize = torch.cuda.synchronize
        torch.cuda.synchronize = lambda *args, **kwargs: None
        try:
            original_enter(_state["ours"])
        except Exception as error:
            _say("could not resume PyTorch op ranges after torch.profiler: %s" % error)
        finally:
            torch.cuda.synchronize = synchronize

    profiler._enable_profiler, profiler._disable_profiler = enable_kineto, disable_kineto

    # torch.profiler clears the flag as it stops, after ours resumed: set it again.
    run_on_stop = getattr(profiler, "_run_on_profiler_stop", None)
    if run_on_stop is not None:
        def run_on_profiler_stop(*args, **kwargs):
            result = run_on_stop(*args, **kwargs)
            if not _state["paused"]:
                _mark_profiler_on(profiler)
            return result

        profiler._run_on_profiler_stop = run_on_profiler_stop


def _torch_imported(torch):
    _state["torch_seen"] = True
    try:
        try:
            _state["observer"] = _start_observer(torch)
        except Exception as error:  # an observer library without our entry points
            _say("the PyTorch observer failed (%s: %s): recording operators through emit_nvtx"
                 % (type(error).__name__, error))
        if _state["observer"] is None:
            _enter_emit_nvtx(torch)
        else:
            _mark_profiler_on(torch.autograd.profiler)
            _guard_user_profilers(torch, torch.autograd.profiler)
    except Exception as error:
        _say("cannot record PyTorch operators (torch %s): %s: %s"
             % (getattr(torch, "__version__", "?"), type(error).__name__, error))


class _TorchImportWatcher:
    """A meta path finder that runs _torch_imported once `import torch` has finished."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or _state["torch_seen"]:
            return None
        import importlib.util

        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        original_exec = loader.exec_module

        def exec_module(module):
            original_exec(module)
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
            _torch_imported(module)

        loader.exec_module = exec_module
        return spec


def _report_missing_torch():
    if not _state["torch_seen"]:
        _say("--pytorch=%s: this Python program never imported torch, so no PyTorch operators were "
             "recorded (is torch installed for %s?)" % (_MODE, sys.executable))


if _MODE in ("ops", "ops-shapes"):
    sys.meta_path.insert(0, _TorchImportWatcher())
    # Only the launched program says that torch never came (not every helper it starts).
    if not os.environ.get("KINETOSCOPE_PYTORCH_CHILD"):
        os.environ["KINETOSCOPE_PYTORCH_CHILD"] = "1"
        import atexit

        atexit.register(_report_missing_torch)
_chain_user_sitecustomize()
