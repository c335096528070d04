"""The %%cuda cell magic: the cell is a CUDA program, compiled with nvcc and run on ptxemu.

    %%cuda [--racecheck] [--seed N] [--profile] [--timeout S] [--timeline]
           [-c "NVCC ARGS"] [-r "PROGRAM ARGS"] [--threads N] [--devices N] [--time-limit S]

The program's output is printed; races, faults, deadlocks and time limits are shown as
blocks that quote the cell's lines; --timeline draws the warps and copies, --profile a bar
for each launch's estimated H100 time (docs/notebooks.md)."""

import shlex

from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import Image, display

from . import plots, render
from .run import run_cell


def _unquote(s):
    """IPython keeps the quotes of a quoted option value: -r "3 4" gives '"3 4"'."""
    s = (s or "").strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


def _show(text_plain, html=None):
    data = {"text/plain": text_plain}
    if html:
        data["text/html"] = html
    display(data, raw=True)


@magics_class
class CudaMagics(Magics):
    @magic_arguments()
    @argument("--racecheck", action="store_true",
              help="report races and async-copy misuse (deterministic mode, seed 1 unless --seed)")
    @argument("--seed", "-s", type=int, default=None,
              help="deterministic mode with this seed: the same seed gives the same output")
    @argument("--profile", action="store_true",
              help="counters and an estimated H100 time per launch, drawn as bars")
    @argument("--timeout", type=float, default=None,
              help="seconds a kernel may run before ptxemu stops it and says where every warp is")
    @argument("--timeline", action="store_true", help="draw the warps, waits and copies over time")
    @argument("--compiler-args", "-c", default="", help="more nvcc arguments, quoted")
    @argument("--run-args", "-r", default="", help="the program's arguments, quoted")
    @argument("--threads", "-t", type=int, default=None, help="ptxemu worker threads")
    @argument("--devices", "-d", type=int, default=None, help="how many H100s to emulate")
    @argument("--time-limit", type=float, default=600,
              help="seconds the whole run may take (default 600)")
    @cell_magic
    def cuda(self, line, cell):
        """Compile the cell with nvcc and run it on ptxemu (see %%cuda?)."""
        args = parse_argstring(self.cuda, line)
        res = run_cell(cell, nvcc_args=_unquote(args.compiler_args), run_args=_unquote(args.run_args),
                       racecheck=args.racecheck, seed=args.seed, profile=args.profile,
                       timeout=args.timeout, timeline=args.timeline, threads=args.threads,
                       devices=args.devices, time_limit=args.time_limit)
        if not res.compiled:
            _show("compilation failed:\n" + res.compile_output,
                  "<pre style='color:#c0392b'>compilation failed:\n%s</pre>"
                  % render.html.escape(res.compile_output))
            return
        if res.stdout:
            print(res.stdout, end="" if res.stdout.endswith("\n") else "\n")
        rest = render.strip_reported(res.stderr).strip()
        if rest:
            import sys
            print(rest, file=sys.stderr)
        hint = "replay with %%cuda --racecheck --seed {seed}" if args.racecheck else \
            "replay with %%cuda --seed {seed}"
        for b in render.blocks(res.reports, cell, hint):
            _show(b.text(), b.html())
        names = render.demangle({r.get("kernel", "") for r in res.reports if r.get("kernel")})
        if args.profile:
            profs = [r for r in res.reports if r.get("kind") == "profile"]
            png, table = plots.profile_png(profs, names)
            print(table)
            if png:
                display(Image(data=png, format="png"))
        if args.timeline:
            if res.timeline is None:
                print("no timeline was written (did the program exit normally?)")
            else:
                png, summary = plots.timeline_png(res.timeline, names)
                print(summary)
                if png:
                    display(Image(data=png, format="png"))
        if res.status not in (0, None):
            print("exit status %d" % res.status)
