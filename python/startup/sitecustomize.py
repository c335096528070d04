# sitecustomize.py - run by every Python program started under the ptxemu launcher, which puts
# this folder first on PYTHONPATH. It arms ptxemu_numba_compat (applied only when the program
# imports numba.cuda), then runs the sitecustomize this one hides, so the system's own start-up
# code (Debian's apport hook, a virtualenv's) still runs.
import os
import sys


def _arm():
    if os.environ.get("PTXEMU_NUMBA_COMPAT", "1") == "0":
        return
    try:
        import ptxemu_numba_compat
        ptxemu_numba_compat.arm()
    except Exception as e:  # start-up code must never stop the program
        sys.stderr.write("ptxemu: the Numba compatibility hook failed to load: %s\n" % e)


def _chain():
    here = os.path.dirname(os.path.abspath(__file__))
    saved = list(sys.path)
    me = sys.modules.pop("sitecustomize", None)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
        import importlib
        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    except Exception as e:
        sys.stderr.write("ptxemu: the system's sitecustomize failed: %s\n" % e)
    finally:
        sys.path[:] = saved
        if me is not None:
            sys.modules["sitecustomize"] = me


_arm()
_chain()
