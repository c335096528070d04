# ptxemu_numba_compat.py - lets a Numba made before CUDA 12 (Debian 12's 0.56) run its CUDA
# target against a CUDA 13 toolkit and driver. None of this is about ptxemu: the same Numba
# fails the same way on a real GPU with driver 580 and CUDA 13 (docs/python.md). Armed by
# sitecustomize.py under the launcher; each change is made when Numba's module is imported,
# and only where that Numba needs it.
#
# 1. libNVVM's IR version. Numba < 0.57 stamps every module "NVVM IR 1.6"; the libNVVM of
#    CUDA 12 and 13 speaks IR 2.0 and refuses 1.6 (NVVM_ERROR_IR_VERSION_MISMATCH). The
#    module is stamped with the version the loaded libNVVM reports instead.
# 2. Driver functions whose "_v2" took new arguments. Numba's ctypes binding prefers the
#    "_v2" of every name; CUDA 13's cuCtxGetDevice_v2 and cuCtxSynchronize_v2 take a
#    context as a second argument, which Numba leaves to whatever is in the register
#    (CUDA_ERROR_INVALID_CONTEXT, or a crash in driver 580). Those names bind to the
#    original functions, whose arguments are the ones Numba passes.
# 3. libNVVM's place. Numba looks in $CUDA_HOME/nvvm/lib64; NVIDIA's pip wheels and the
#    toolkits assembled from them put libnvvm.so in $CUDA_HOME/lib64. Both are looked in.
# 4. The default target of cuda.compile_ptx. Numba 0.56 compiles for compute_52 unless told;
#    CUDA 13's libNVVM compiles for compute_75 and newer only (NVVM_ERROR_INVALID_OPTION).
#    With a CUDA 13 toolkit the default is compute_75; NUMBA_CUDA_DEFAULT_PTX_CC still rules.
import importlib.abc
import importlib.util
import os
import sys

# Driver functions whose _v2 (or later) has more parameters than the name Numba binds.
NEW_ARITY = ("cuCtxGetDevice", "cuCtxSynchronize", "cuStreamGetCtx", "cuMemAdvise",
             "cuMemPrefetchAsync", "cuGraphAddDependencies", "cuGraphRemoveDependencies",
             "cuGraphGetEdges", "cuGraphNodeGetDependencies", "cuGraphNodeGetDependentNodes")

_applied = []


def _say(msg):
    try:
        level = int(os.environ.get("PTXEMU_LOG", "1"))
    except ValueError:
        level = 1
    if level >= 2:
        sys.stderr.write("ptxemu: numba: %s\n" % msg)


def _numba_version():
    try:
        import numba
        return tuple(int(x) for x in numba.__version__.split(".")[:2])
    except Exception:
        return (0, 0)


def _patch_nvvm(mod):
    original = mod.add_ir_version

    def add_ir_version(ir_module):
        major, minor, dbg_major, dbg_minor = mod.NVVM().get_ir_version()
        if major < 2:
            return original(ir_module)
        from llvmlite import ir
        i32 = ir.IntType(32)
        md = ir_module.add_metadata([i32(major), i32(minor), i32(dbg_major), i32(dbg_minor)])
        ir_module.add_named_metadata("nvvmir.version", md)

    mod.add_ir_version = add_ir_version
    _applied.append("NVVM IR version from libNVVM")


def _patch_driver(mod):
    original = mod.Driver._find_api

    def _find_api(self, fname):
        if fname not in NEW_ARITY:
            return original(self, fname)
        variants = ("",)
        if mod.config.CUDA_PER_THREAD_DEFAULT_STREAM and not mod.USE_NV_BINDING:
            variants = ("_ptds", "_ptsz", "")
        for v in variants:
            fn = getattr(self.lib, fname + v, None)
            if fn is not None:
                return fn
        return original(self, fname)

    mod.Driver._find_api = _find_api
    _applied.append("original-arity bindings for " + ", ".join(NEW_ARITY[:2]))


def _patch_paths(mod):
    original = mod._get_nvvm_path

    def _get_nvvm_path():
        try:
            found = original()
            if found.info:
                return found
        except OSError:   # Numba lists $CUDA_HOME/nvvm/lib64 even when it is missing
            found = mod._env_path_tuple("<unknown>", None)
        homes = [mod.get_cuda_home(), mod.get_system_ctk()]
        for home in filter(None, homes):
            for sub in ("lib64", "lib"):
                where = os.path.join(home, sub)
                libs = mod.find_lib("nvvm", where) if os.path.isdir(where) else []
                if libs:
                    return mod._env_path_tuple("CUDA_HOME" if home == homes[0] else "System",
                                               max(libs))
        return found

    mod._get_nvvm_path = _get_nvvm_path
    _applied.append("libNVVM looked for in lib64")


def _patch_compiler(mod):
    import inspect
    original = mod.compile_ptx
    sig = inspect.signature(original)

    def lowest_cc():
        if "NUMBA_CUDA_DEFAULT_PTX_CC" in os.environ:
            return None
        try:
            from numba.cuda.cudadrv.runtime import runtime
            if runtime.get_version() >= (13, 0):
                return max(tuple(mod.config.CUDA_DEFAULT_PTX_CC), (7, 5))
        except Exception:
            pass
        return None

    def compile_ptx(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        if bound.arguments.get("cc") is None:
            cc = lowest_cc()
            if cc is not None:
                bound.arguments["cc"] = cc
        return original(*bound.args, **bound.kwargs)

    compile_ptx.__doc__ = original.__doc__
    mod.compile_ptx = compile_ptx
    _applied.append("cuda.compile_ptx's default target at least compute_75 on CUDA 13")


_PATCHES = {
    "numba.cuda.cudadrv.nvvm": _patch_nvvm,
    "numba.cuda.cudadrv.driver": _patch_driver,
    "numba.cuda.cuda_paths": _patch_paths,
    "numba.cuda.compiler": _patch_compiler,
}


class _Loader(importlib.abc.Loader):
    def __init__(self, inner, patch):
        self.inner, self.patch = inner, patch

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        try:
            self.patch(module)
            _say("%s: %s" % (module.__name__, _applied[-1]))
        except Exception as e:
            sys.stderr.write("ptxemu: numba: cannot adapt %s: %s\n" % (module.__name__, e))


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        patch = _PATCHES.get(name)
        if patch is None or _numba_version() >= (0, 57):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader, patch)
                return spec
        return None


def arm():
    """Adapts Numba's CUDA modules when they are imported (they must not be yet)."""
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
