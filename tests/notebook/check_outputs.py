"""check_outputs.py - checks an executed notebook (tests/run_notebook_tests.sh): every code
cell with "ptxemu_expect" in its metadata must show each text it lists (in a stream, or in a
text/plain result), none of those it lists as absent, and as many PNG pictures as it says; no
cell may have raised an error. Prints a PASS/FAIL line per cell; exit status 1 on a failure.
Usage: python3 check_outputs.py EXECUTED.ipynb"""
import json
import sys


def texts(cell):
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            out.append("".join(o.get("text", "")))
        elif o.get("output_type") in ("display_data", "execute_result"):
            out.append("".join(o.get("data", {}).get("text/plain", "")))
        elif o.get("output_type") == "error":
            out.append("ERROR %s: %s" % (o.get("ename"), o.get("evalue")))
    return "\n".join(out)


def images(cell):
    return sum(1 for o in cell.get("outputs", []) if "image/png" in o.get("data", {}))


def main(path):
    nb = json.load(open(path, encoding="utf-8"))
    fails = 0
    for n, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        src = "".join(cell.get("source", "")).splitlines()
        name = "cell %d (%s)" % (n, src[0] if src else "")
        got = texts(cell)
        problems = []
        if any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            problems.append("raised: " + got[-300:])
        exp = cell.get("metadata", {}).get("ptxemu_expect")
        if exp:
            problems += ["missing %r" % t for t in exp.get("text", []) if t not in got]
            problems += ["has %r" % t for t in exp.get("absent", []) if t in got]
            if images(cell) != exp.get("images", 0):
                problems.append("%d pictures, expected %d" % (images(cell), exp.get("images", 0)))
        if problems:
            fails += 1
            print("FAIL: %s: %s" % (name, "; ".join(problems)))
            print("---- its output:\n%s\n----" % got[-2000:])
        else:
            print("PASS: %s" % name)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
