#!/usr/bin/env python3
"""autograde.py - grade one CUDA lab submission under ptxemu.

Usage: python3 labs/autograde.py [--launcher PATH] [--json OUT] [--keep DIR] LAB_DIR STUDENT.cu

1. builds STUDENT.cu with `nvcc -arch=sm_90 -lineinfo $NVCCFLAGS -o prog` (NVCCFLAGS from
   LAB_DIR/lab.conf; the NVCC environment variable names the compiler);
2. runs `ptxemu --racecheck --report-json report.json --timeout T ./prog $ARGS` with
   PTXEMU_STRICT_BOUNDS=1 (an access past the end of an allocation is a fault, not a warning),
   under a wall-clock limit for the whole run;
3. prints a checklist from report.json and the program's output;
4. ends with `GRADE: PASS` or `GRADE: FAIL: <reasons>`.

Exit status: 0 pass, 1 fail, 2 the grader could not run (no compiler, no launcher, bad lab).
Python 3 standard library only.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

REASONS = ["build", "crash", "fault", "race", "deadlock", "timeout", "leak", "wrong-result", "no-result"]
WALL_GRACE = 20          # seconds the whole run may take beyond the lab's TIMEOUT
MAX_LIST = 5             # faults / races / leaks listed in full


class GraderError(Exception):
    """The grader itself cannot run (exit status 2)."""


# ----------------------------------------------------------------------------------- setup

def read_conf(lab_dir):
    path = os.path.join(lab_dir, "lab.conf")
    conf = {"ARGS": "", "NVCCFLAGS": "", "TIMEOUT": "60"}
    if not os.path.isfile(path):
        raise GraderError("no lab.conf in %s" % lab_dir)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if "=" not in line:
                raise GraderError("%s:%d: expected KEY=VALUE" % (path, n))
            key, value = line.split("=", 1)
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            conf[key.strip()] = value
    try:
        conf["TIMEOUT"] = int(conf["TIMEOUT"])
    except ValueError:
        raise GraderError("%s: TIMEOUT must be a whole number of seconds" % path)
    return conf


def find_nvcc():
    env = os.environ.get("NVCC")
    if env:
        path = shutil.which(env) or (env if os.access(env, os.X_OK) else None)
        if not path:
            raise GraderError("NVCC=%s is not an executable" % env)
        return path
    path = shutil.which("nvcc")
    if path:
        return path
    if os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        return "/usr/local/cuda/bin/nvcc"
    raise GraderError("no nvcc: put it on PATH or set NVCC")


def find_launcher(given):
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return os.path.abspath(given)
        raise GraderError("launcher %s is not an executable" % given)
    here = os.path.dirname(os.path.abspath(__file__))
    cand = os.path.join(os.path.dirname(here), "runtime", "ptxemu")
    if os.path.isfile(cand) and os.access(cand, os.X_OK):
        return cand
    path = shutil.which("ptxemu")
    if path:
        return path
    raise GraderError("no ptxemu launcher: build the repository or pass --launcher")


# --------------------------------------------------------------------------- source places

class Places:
    """Turns a report's place (src_file, src_line, ptx_line) into a place in the student's file.

    ptxemu reports code inlined from CUDA headers (cuda::memcpy_async, cooperative groups,
    atomics) at the student's line that called it, and names the header's line in
    inlined_file / inlined_line."""

    def __init__(self, student):
        self.student = os.path.realpath(student)
        self.lines = []
        try:
            with open(student, errors="replace") as f:
                self.lines = f.read().split("\n")
        except OSError:
            pass

    def is_student(self, path):
        return bool(path) and os.path.realpath(path) == self.student

    def source(self, line):
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1].strip()
        return ""

    def describe(self, place):
        """'file.cu:LINE: <source text>' for the student's code (with the header line for
        inlined code), else the place as reported."""
        src_file, src_line = place.get("src_file"), place.get("src_line")
        inner = ""
        if place.get("inlined_file"):
            inner = " (inside %s:%s)" % (os.path.basename(place["inlined_file"]), place.get("inlined_line"))
        if src_file and self.is_student(src_file) and src_line:
            text = self.source(src_line)
            return "%s:%d%s%s" % (os.path.basename(src_file), src_line, (": " + text) if text else "", inner)
        if src_file:
            return "%s:%s%s" % (os.path.basename(src_file), src_line, inner)
        return "PTX line %s" % place.get("ptx_line")


def demangle(names):
    names = sorted(set(n for n in names if n))
    out = {n: n for n in names}
    tool = shutil.which("c++filt") or shutil.which("cu++filt")
    if not tool or not names:
        return out
    try:
        r = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True, timeout=10)
        got = r.stdout.split("\n")
        for n, d in zip(names, got):
            if d.strip():
                out[n] = d.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return out


def dim3(v):
    if isinstance(v, list):
        return "(" + ",".join(str(x) for x in v) + ")"
    return str(v)


# ------------------------------------------------------------------------------ the grader

class Check:
    def __init__(self, name):
        self.name = name
        self.status = "pass"      # pass, fail, skip (not reached / a consequence), warn
        self.summary = ""
        self.details = []

    def set(self, status, summary, details=None):
        self.status, self.summary = status, summary
        if details:
            self.details.extend(details)
        return self

    def as_json(self):
        return {"name": self.name, "status": self.status, "summary": self.summary, "details": self.details}


def first_errors(text, limit=8):
    lines = [l for l in text.split("\n") if l.strip()]
    errs = [l for l in lines if re.search(r"\berror\b", l)]
    pick = errs if errs else lines
    return pick[:limit]


def race_hints(stderr):
    """The detector's hint for each race line on stderr, in order, keyed by kind."""
    hints = []
    for line in stderr.split("\n"):
        m = re.match(r"ptxemu: race: ([a-z-]+) (.*)", line)
        if not m:
            continue
        kind, rest = m.group(1), m.group(2)
        hint = ""
        h = re.search(r"with nothing ordering them; (.*?)(?: \(\d+ times; seed \d+\))?$", rest)
        if h:
            hint = h.group(1)
        else:
            h = re.search(r"(touches bytes .*?)(?: \(\d+ times; seed \d+\))?$", rest)
            if h:
                hint = h.group(1)
        hints.append((kind, hint))
    return hints


def fallback_hint(race):
    kind = race.get("kind", "")
    acc = race.get("accesses", [])
    if "async-copy" in kind:
        return "wait for the asynchronous copy (mbarrier wait / cp.async.wait_group) before touching its bytes"
    if "mbarrier" in kind or "proxy" in kind:
        return "see docs/determinism.md for this asynchronous-copy protocol error"
    if len(acc) == 2:
        a, b = acc
        if a.get("block") != b.get("block"):
            return "the threads are in different blocks: no __syncthreads() orders them"
        if a.get("warp") == b.get("warp"):
            return "both threads are in one warp: a __syncwarp() between the accesses orders them"
        return "a __syncthreads() between the two accesses orders them"
    return ""


def grade(args):
    lab_dir = os.path.abspath(args.lab_dir)
    student = os.path.abspath(args.student)
    if not os.path.isdir(lab_dir):
        raise GraderError("no lab directory %s" % lab_dir)
    if not os.path.isfile(student):
        raise GraderError("no file %s" % student)
    conf = read_conf(lab_dir)
    nvcc = find_nvcc()
    launcher = find_launcher(args.launcher)
    lab = os.path.basename(lab_dir.rstrip("/"))
    timeout = conf["TIMEOUT"]

    if args.keep:
        work = os.path.abspath(args.keep)
        os.makedirs(work, exist_ok=True)
        cleanup = None
    else:
        work = tempfile.mkdtemp(prefix="autograde-")
        cleanup = work

    checks = []
    reasons = []
    report = None
    try:
        print("Grading %s for lab %s" % (os.path.basename(student), lab))

        # 1. build
        c_build = Check("builds")
        checks.append(c_build)
        prog = os.path.join(work, "prog")
        cmd = [nvcc, "-arch=sm_90", "-lineinfo"] + shlex.split(conf["NVCCFLAGS"]) + ["-o", prog, student]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=work)
            built = r.returncode == 0 and os.path.isfile(prog)
            msg = (r.stderr or "") + (r.stdout or "")
        except subprocess.TimeoutExpired:
            built, msg = False, "the compiler ran for more than 10 minutes"
        except OSError as e:
            raise GraderError("cannot run %s: %s" % (nvcc, e))
        with open(os.path.join(work, "build.log"), "w") as f:
            f.write(" ".join(shlex.quote(c) for c in cmd) + "\n" + msg)
        if built:
            c_build.set("pass", "compiled with " + " ".join(cmd[1:3] + shlex.split(conf["NVCCFLAGS"])))
        else:
            c_build.set("fail", "the compiler reported errors", first_errors(msg))
            reasons.append("build")
            for name in ("runs to completion", "no faults", "no races", "no deadlocks or time limits",
                         "no leaks", "CUDA errors all checked", "result correct"):
                checks.append(Check(name).set("skip", "not run: the program did not build"))
            return finish(args, lab, student, checks, reasons, None)

        # 2. run
        report_path = os.path.join(work, "report.json")
        if os.path.exists(report_path):
            os.remove(report_path)
        env = dict(os.environ)
        env["PTXEMU_STRICT_BOUNDS"] = "1"
        for k in ("PTXEMU_SEED", "PTXEMU_SCHEDULE_IN", "PTXEMU_SCHEDULE_OUT", "PTXEMU_RACECHECK"):
            env.pop(k, None)
        run_cmd = [launcher, "--racecheck", "--report-json", report_path, "--timeout", str(timeout),
                   "./prog"] + shlex.split(conf["ARGS"])
        wall_limit = timeout + WALL_GRACE
        killed = False
        start = time.time()
        with open(os.path.join(work, "stdout.txt"), "w") as fo, open(os.path.join(work, "stderr.txt"), "w") as fe:
            p = subprocess.Popen(run_cmd, cwd=work, env=env, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
            try:
                p.wait(timeout=wall_limit)
            except subprocess.TimeoutExpired:
                killed = True
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.wait()
        elapsed = time.time() - start
        with open(os.path.join(work, "stdout.txt"), errors="replace") as f:
            stdout = f.read()
        with open(os.path.join(work, "stderr.txt"), errors="replace") as f:
            stderr = f.read()
        if os.path.isfile(report_path):
            try:
                with open(report_path) as f:
                    report = json.load(f)
            except (OSError, ValueError):
                report = None
        places = Places(student)
        return evaluate(args, lab, student, conf, checks, reasons, report, stdout, stderr, killed,
                        wall_limit, elapsed, p.returncode, places)
    finally:
        if cleanup:
            shutil.rmtree(cleanup, ignore_errors=True)


def evaluate(args, lab, student, conf, checks, reasons, report, stdout, stderr, killed, wall_limit,
             elapsed, launcher_rc, places):
    rep = report or {}
    faults = rep.get("faults") or []
    # errors that do not stop the kernel: an access past an allocation that the GPU's pages
    # tolerate (without PTXEMU_STRICT_BOUNDS), undefined behaviour of a warp-synchronous
    # instruction; they fail the same check
    invalid = (rep.get("out_of_bounds") or []) + (rep.get("undefined") or [])
    races = rep.get("races") or []
    deadlocks = rep.get("deadlocks") or []
    timeouts = rep.get("timeouts") or []
    leaks = rep.get("leaks") or []
    api_errors = rep.get("api_errors") or []
    exit_status = rep.get("exit_status")
    sig = rep.get("signal")
    names = demangle([x.get("kernel") for x in faults + invalid + races + deadlocks + timeouts])

    def kname(x):   # ptxemu's demangled name, else c++filt's
        return x.get("demangled") or names.get(x.get("kernel"), x.get("kernel") or "?")

    stopped_by_error = bool(faults or deadlocks or timeouts)

    # runs to completion
    c = Check("runs to completion")
    checks.append(c)
    own_err = [l for l in stderr.split("\n") if l.strip() and not l.startswith("ptxemu:")]
    if killed:
        c.set("fail", "stopped by the grader after %d s (the whole-run time limit)" % wall_limit)
    elif report is None:
        c.set("fail", "no report from ptxemu (launcher exit status %s)" % launcher_rc,
              [l for l in stderr.split("\n") if l.strip()][-5:])
        reasons.append("crash")
    elif rep.get("refused"):
        c.set("fail", "ptxemu did not start it", [rep["refused"]])
        reasons.append("crash")
    elif sig is not None:
        c.set("fail", "killed by signal %s" % sig, own_err[-5:])
        reasons.append("crash")
    elif exit_status != 0:
        if stopped_by_error:
            c.set("skip", "exited with status %s after the error reported below" % exit_status, own_err[-3:])
        else:
            c.set("fail", "exited with status %s" % exit_status, own_err[-5:])
            reasons.append("crash")
    else:
        c.set("pass", "exit status 0 in %.1f s" % elapsed)

    # faults
    c = Check("no faults")
    checks.append(c)
    if report is None:
        c.set("skip", "not known: no report")
    elif faults or invalid:
        det = []
        for fl in (faults + invalid)[:MAX_LIST]:
            det.append("%s" % fl.get("message", "fault"))
            det.append("    at %s" % places.describe(fl))
            det.append("    kernel %s, block %s, thread %s" % (kname(fl), dim3(fl.get("block")), dim3(fl.get("thread"))))
        nf = len(faults) + len(invalid)
        if nf > MAX_LIST:
            det.append("... and %d more" % (nf - MAX_LIST))
        c.set("fail", "%d fault%s: an invalid memory access or instruction" % (nf, "s" if nf > 1 else ""), det)
        reasons.append("fault")
    else:
        c.set("pass", "no out-of-bounds, misaligned or otherwise invalid access")

    # races
    c = Check("no races")
    checks.append(c)
    if report is None:
        c.set("skip", "not known: no report")
    elif races:
        hints = race_hints(stderr)
        det = []
        hi = 0
        for rc in races:
            hint = ""
            for j in range(hi, len(hints)):
                if hints[j][0] == rc.get("kind"):
                    hint, hi = hints[j][1], j + 1
                    break
            rc["_hint"] = rc.get("hint") or hint or fallback_hint(rc)
        for rc in races[:MAX_LIST]:
            if rc.get("kind") == "host-device":   # the host's own access: the message says it all
                det.append("host-device race in %s memory (the host and work in flight)" % rc.get("space", "?"))
                det.extend(textwrap.wrap(rc.get("message", ""), width=92, initial_indent="    ",
                                         subsequent_indent="    "))
                det.extend(textwrap.wrap(rc["_hint"], width=92, initial_indent="    hint: ",
                                         subsequent_indent="          "))
                continue
            where = rc.get("space", "?") + " memory"
            kacc = [a for a in rc.get("accesses", []) if a.get("kernel")]
            kern = kname(rc) if rc.get("kernel") else kname(kacc[0]) if kacc else "?"
            det.append("%s in %s, kernel %s (%s times)" % (rc.get("kind"), where, kern, rc.get("count", 1)))
            for a in rc.get("accesses", []):
                if a.get("host_copy"):   # a copy or fill the host issued
                    det.append("    the host's %s on %s" % (a["host_copy"], a.get("stream", "a stream")))
                    continue
                det.append("    %-3s by block %s thread %s at %s" % (
                    a.get("op", "?"), dim3(a.get("block")), dim3(a.get("thread")),
                    places.describe(a)))
            if rc["_hint"]:   # wrapped to fit a terminal with the checklist's indent
                det.extend(textwrap.wrap(rc["_hint"], width=92, initial_indent="    hint: ",
                                         subsequent_indent="          "))
            acc = rc.get("accesses", [])
            if (len(acc) == 2 and acc[0].get("src_line") and acc[0].get("src_line") == acc[1].get("src_line")
                    and acc[0].get("src_file") == acc[1].get("src_file") and acc[0].get("block") == acc[1].get("block")
                    and "st" in (acc[0].get("op"), acc[1].get("op")) and "atomic" not in rc["_hint"]):
                det.extend(textwrap.wrap("if several threads update one location on this line (x++, x += v), "
                                         "the update must be atomic (atomicAdd)", width=92,
                                         initial_indent="    also: ", subsequent_indent="          "))
        if len(races) > MAX_LIST:
            det.append("... and %d more" % (len(races) - MAX_LIST))
        for rc in races:
            rc.pop("_hint", None)
        c.set("fail", "%d data race%s found by --racecheck" % (len(races), "s" if len(races) > 1 else ""), det)
        reasons.append("race")
    else:
        c.set("pass", "--racecheck found no race in shared or global memory or async copies")

    # deadlocks, time limits
    c = Check("no deadlocks or time limits")
    checks.append(c)
    det = []
    for d in deadlocks[:MAX_LIST]:
        det.append("deadlock in kernel %s: %s" % (kname(d), d.get("message", "")))
        for w in (d.get("warps") or [])[:4]:
            det.append("    warp %s of block %s %s at %s" % (w.get("warp"), dim3(w.get("block")), w.get("state", ""),
                       places.describe(w)))
    for t in timeouts[:MAX_LIST]:
        det.append("kernel %s ran past the %d s limit: %s" % (kname(t), conf["TIMEOUT"], t.get("message", "")))
        for w in (t.get("warps") or [])[:4]:
            det.append("    warp %s of block %s %s at %s" % (w.get("warp"), dim3(w.get("block")), w.get("state", ""),
                       places.describe(w)))
    if killed:
        det.append("the whole run took longer than %d s and was stopped" % wall_limit)
    if deadlocks:
        reasons.append("deadlock")
    if timeouts or killed:
        reasons.append("timeout")
    if deadlocks or timeouts or killed:
        c.set("fail", "the program hung", det)
    elif report is None:
        c.set("skip", "not known: no report")
    else:
        c.set("pass", "every kernel finished within %d s" % conf["TIMEOUT"])

    # leaks
    c = Check("no leaks")
    checks.append(c)
    if report is None:
        c.set("skip", "not known: no report")
    elif exit_status != 0 or sig is not None:
        c.set("skip", "not checked: the program did not reach its end")
    elif stopped_by_error:
        c.set("skip", "not checked: after the error above the device is lost and cudaFree fails")
    elif leaks:
        total = sum(int(l.get("bytes", 0)) for l in leaks)
        det = ["%s bytes of %s allocated at %s" % (l.get("bytes"), l.get("memory", "memory"), l.get("site", "?"))
               for l in leaks[:MAX_LIST]]
        c.set("fail", "%d allocation%s (%d bytes) never freed: cudaFree every cudaMalloc"
              % (len(leaks), "s" if len(leaks) > 1 else "", total), det)
        reasons.append("leak")
    else:
        c.set("pass", "all device memory freed")

    # CUDA errors checked (a hint: does not change the grade)
    c = Check("CUDA errors all checked")
    checks.append(c)
    unchecked = [e for e in api_errors if not e.get("checked")]
    flags = " ".join(shlex.split(conf["NVCCFLAGS"])).replace("=", " ")
    shared_rt = re.search(r"(^| )--?cudart shared( |$)", flags) is not None
    if report is None:
        c.set("skip", "not known: no report")
    elif not shared_rt and not api_errors:
        c.set("skip", "not known: built with nvcc's static runtime (NVCCFLAGS=--cudart shared tells)")
    elif unchecked:
        c.set("warn", "errors the program never asked about (does not change the grade)",
              ["%s returned %s (%s) %s time%s" % (e.get("api"), e.get("name"), e.get("code"), e.get("count"),
                                                  "s" if e.get("count", 1) != 1 else "") for e in unchecked[:MAX_LIST]])
    elif api_errors:
        c.set("pass", "every CUDA error was checked (%s)" % ", ".join(
            "%s: %s" % (e.get("api"), e.get("name")) for e in api_errors[:3]))
    else:
        c.set("pass", "no CUDA call failed")

    # result
    c = Check("result correct")
    checks.append(c)
    results = [l.strip() for l in stdout.split("\n") if l.strip().startswith("RESULT:")]
    if results:
        line = results[-1]
        extra = ["the program printed %d RESULT lines; the last one counts" % len(results)] if len(results) > 1 else []
        if line == "RESULT: PASS":
            c.set("pass", line, extra)
        else:
            c.set("fail", line, extra)
            reasons.append("wrong-result")
    elif stopped_by_error and (exit_status not in (0, None) or killed):
        c.set("skip", "no RESULT line: the program stopped at the error above")
    elif killed or report is None or sig is not None or exit_status != 0:
        c.set("skip", "no RESULT line: the program did not run to its end")
    else:
        c.set("fail", "no 'RESULT: PASS' or 'RESULT: FAIL ...' line in the output")
        reasons.append("no-result")

    return finish(args, lab, student, checks, reasons, report)


def finish(args, lab, student, checks, reasons, report):
    marks = {"pass": " ok ", "fail": "FAIL", "skip": " -- ", "warn": "WARN"}
    for c in checks:
        print("[%s] %s: %s" % (marks[c.status], c.name, c.summary))
        for d in c.details:
            print("       " + d)
    ordered = [r for r in REASONS if r in reasons]
    passed = not ordered
    if passed:
        print("GRADE: PASS")
    else:
        print("GRADE: FAIL: " + ", ".join(ordered))
    if args.json:
        doc = {"lab": lab, "file": os.path.basename(student), "passed": passed, "reasons": ordered,
               "checks": [c.as_json() for c in checks], "report": report}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 0 if passed else 1


def main():
    ap = argparse.ArgumentParser(description="Grade a CUDA lab submission under ptxemu.")
    ap.add_argument("--launcher", help="the ptxemu launcher (default: <repo>/runtime/ptxemu, else ptxemu on PATH)")
    ap.add_argument("--json", metavar="OUT", help="also write the grade as JSON to OUT")
    ap.add_argument("--keep", metavar="DIR", help="build and run in DIR and keep prog, report.json, stdout.txt, stderr.txt")
    ap.add_argument("lab_dir", metavar="LAB_DIR")
    ap.add_argument("student", metavar="STUDENT.cu")
    args = ap.parse_args()
    try:
        return grade(args)
    except GraderError as e:
        print("autograde: %s" % e, file=sys.stderr)
        print("GRADE: ERROR (the grader could not run)")
        return 2


if __name__ == "__main__":
    sys.exit(main())
