"""gen_numba_table.py - the Numba section of docs/compatibility.md (docs/gen_compatibility.sh):
Numba's CUDA test suite on ptxemu as recorded by tests/numba/survey.sh (tests/numba/survey.txt),
a row a module with its counts and why what did not pass did not (tests/numba/reasons.txt for
failures and errors, Numba's own messages for skips).
Usage: python3 docs/gen_numba_table.py SURVEY REASONS   (prints Markdown; exit 1 when a failure
has no reason)"""
import collections
import fnmatch
import sys


def main(survey, reasons_path):
    reasons = []
    for line in open(reasons_path, encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            pattern, outcomes, why = line.rstrip("\n").split("\t", 2)
            reasons.append((pattern, set(outcomes.split(",")), why))
    header, rows = "", collections.OrderedDict()
    for line in open(survey, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            header = line.lstrip("# ")
            continue
        if not line.strip():
            continue
        outcome, test, *msg = line.split(" ", 2)
        parts = test.split(".")
        module = ".".join(parts[3:5]) if parts[-1] != "run" else ".".join(parts[3:-1])
        r = rows.setdefault(module, {"pass": 0, "fail": 0, "skip": 0, "xfail": 0, "why": []})
        msg = msg[0].strip() if msg else ""
        if outcome in ("pass", "xpass"):
            r["pass"] += 1
        elif outcome == "xfail":
            r["pass"] += 1
            r["xfail"] += 1
        elif outcome == "skip":
            r["skip"] += 1
            note = "skipped: " + (msg or "(by Numba, unconditionally)")
            if note not in r["why"]:
                r["why"].append(note)
        else:
            r["fail"] += 1
            known = [w for p, o, w in reasons if outcome in o and fnmatch.fnmatchcase(test, p)]
            note = known[0] if known else "**no reason recorded** (%s: %s)" % (outcome, msg[:120])
            if note not in r["why"]:
                r["why"].append(note)
    total = {k: sum(r[k] for r in rows.values()) for k in ("pass", "fail", "skip", "xfail")}
    print("## Numba's CUDA test suite\n")
    print("Debian 12's `python3-numba` runs under the launcher (docs/python.md). Its own CUDA test")
    print("suite, `numba.cuda.tests` - tests written for real GPUs - ran on ptxemu with two emulated")
    print("GPUs (`tests/numba/survey.sh`; recorded in `tests/numba/survey.txt`: %s):" % header)
    print("%d tests passed (%d of them expected failures, as Numba marks them), %d failed and %d were"
          % (total["pass"], total["xfail"], total["fail"], total["skip"]))
    print("skipped. Every failure has its reason in `tests/numba/reasons.txt`, all outside ptxemu but")
    print("those that begin \"ptxemu:\"; `tests/run_numba_tests.sh` (`make check`) holds a part of the")
    print("suite to it.\n")
    print("| Module | Passed | Failed | Skipped | Why |")
    print("|---|---|---|---|---|")
    missing = 0
    for module, r in rows.items():
        why = list(r["why"])
        if r["xfail"]:
            why.insert(0, "%d expected failure%s, as Numba marks %s" % (
                r["xfail"], "" if r["xfail"] == 1 else "s", "it" if r["xfail"] == 1 else "them"))
        missing += sum("**no reason recorded**" in w for w in why)
        cell = "; ".join(w.replace("|", "\\|") for w in why)
        print("| `%s` | %d | %d | %d | %s |" % (module, r["pass"], r["fail"], r["skip"], cell))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
