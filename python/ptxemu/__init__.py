"""ptxemu's IPython extension: ``%load_ext ptxemu`` gives the ``%%cuda`` cell magic, which
compiles the cell with nvcc and runs it on ptxemu, the CUDA emulator, with no GPU
(docs/notebooks.md)."""

__all__ = ["load_ipython_extension"]


def load_ipython_extension(ipython):
    from .magic import CudaMagics
    ipython.register_magics(CudaMagics)
