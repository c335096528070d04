"""Compiling a cell with nvcc and running it under the ptxemu launcher, with what the
emulator reports (races, faults, deadlocks, time limits, profiles) read back from its JSON
lines (PTXEMU_REPORT) and its timeline (PTXEMU_TIMELINE). No IPython here: magic.py shows
the results."""

import json
import os
import shlex
import shutil
import subprocess
import tempfile

CELL_FILE = "cell.cu"
# The cell's first line is the %%cuda line: the code starts at line 2 of the cell, and the
# compiler, the line information and so every report count lines as the notebook shows them.
FIRST_LINE = 2


class Result:
    """What one %%cuda run gave."""

    def __init__(self):
        self.compiled = False
        self.compile_output = ""   # nvcc's messages (cell.cu(LINE): ...)
        self.stdout = ""
        self.stderr = ""
        self.status = None         # the program's exit status (128 + signal when killed)
        self.reports = []          # the JSON objects of PTXEMU_REPORT, in order
        self.timeline = None       # the Chrome-trace document, with --timeline
        self.command = []


def find_tool(name, env_var, extra=()):
    """A program from an environment variable, PATH, or the places given."""
    value = os.environ.get(env_var)
    if value:
        return value
    found = shutil.which(name)
    if found:
        return found
    for place in extra:
        if place and os.access(place, os.X_OK):
            return place
    return None


def nvcc_path():
    home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    return find_tool("nvcc", "NVCC", (os.path.join(home, "bin", "nvcc"),))


def ptxemu_path():
    return find_tool("ptxemu", "PTXEMU", ())


def _read_reports(path):
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def run_cell(source, nvcc_args="", run_args="", racecheck=False, seed=None, profile=False,
             timeout=None, timeline=False, threads=None, devices=None, time_limit=None):
    """Compiles source (a whole .cu file) and runs it on ptxemu. time_limit: seconds the
    whole run may take (the notebook must not hang); timeout: ptxemu's kernel time limit."""
    res = Result()
    nvcc, ptxemu = nvcc_path(), ptxemu_path()
    if not nvcc:
        res.compile_output = "nvcc not found: set NVCC or CUDA_HOME, or put nvcc on PATH"
        return res
    if not ptxemu:
        res.compile_output = "ptxemu not found: set PTXEMU, or put the ptxemu launcher on PATH"
        return res
    with tempfile.TemporaryDirectory(prefix="ptxemu-cell-") as work:
        with open(os.path.join(work, CELL_FILE), "w", encoding="utf-8") as f:
            f.write('#line %d "%s"\n' % (FIRST_LINE, CELL_FILE))
            f.write(source)
            if not source.endswith("\n"):
                f.write("\n")
        # sm_90: the emulated H100; -lineinfo: reports name the cell's lines
        cmd = [nvcc, "-arch=sm_90", "-lineinfo", "-o", "cell", CELL_FILE] + shlex.split(nvcc_args)
        p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, errors="replace")
        res.compile_output = (p.stdout + p.stderr).strip()
        if p.returncode != 0:
            return res
        res.compiled = True
        env = dict(os.environ)
        report = os.path.join(work, "report.jsonl")
        env["PTXEMU_REPORT"] = report
        opts = []
        if racecheck:
            opts.append("--racecheck")
        if seed is not None:
            opts += ["--seed", str(seed)]
        if profile:
            opts.append("--profile")
        if timeout is not None:
            opts += ["--timeout", str(timeout)]
        if threads is not None:
            opts += ["--threads", str(threads)]
        if devices is not None:
            opts += ["--device-count", str(devices)]
        trace = os.path.join(work, "timeline.json")
        if timeline:
            opts += ["--timeline", trace]
        res.command = [ptxemu] + opts + ["./cell"] + shlex.split(run_args)
        try:
            p = subprocess.run(res.command, cwd=work, env=env, capture_output=True, text=True,
                               errors="replace", timeout=time_limit)
            res.status = p.returncode if p.returncode >= 0 else 128 - p.returncode
            res.stdout, res.stderr = p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            res.status = None
            res.stdout = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode(errors="replace")
            res.stderr = (e.stderr if isinstance(e.stderr, str) else (e.stderr or b"").decode(errors="replace")) + \
                "\nptxemu: the cell ran longer than %s seconds and was stopped\n" % time_limit
        res.reports = _read_reports(report)
        if timeline:
            try:
                with open(trace, encoding="utf-8") as f:
                    res.timeline = json.load(f)
            except (OSError, ValueError):
                res.timeline = None
    return res
