#!/usr/bin/env python3
"""gradebook.py - merge the graded submissions of a course into one gradebook.

Usage: python3 labs/gradebook.py [--submissions DIR] OUT

OUT/results/STUDENT/LAB.json are the results of labs/autograde.py --json (written by
scripts/slurm/grade.sbatch, one job-array task per group of students, or by any other way of
running the grader, docs/cluster.md). Writes

  OUT/gradebook.csv   a row a student: one column a lab (PASS, FAIL: reasons, missing, or
                      error: why), then how many labs passed;
  OUT/gradebook.json  {"labs": [...], "students": {STUDENT: {LAB: {"passed", "reasons",
                      "checks", "file"} or {"error"} or {"missing": true}}}, "summary": {...}}

With --submissions, every .cu file there (SUBMISSIONS/STUDENT/LAB.cu) must have a result: one
without is "error: not graded" (a task that never ran, or died). Exit status: 0 when every
submission was graded, 1 when some could not be (the gradebook is written all the same), 2
on bad usage. Python 3 standard library only.
"""

import argparse
import csv
import json
import os
import sys


def load_results(out):
    """{student: {lab: result}} from OUT/results."""
    results = {}
    root = os.path.join(out, "results")
    if not os.path.isdir(root):
        return results
    for student in sorted(os.listdir(root)):
        d = os.path.join(root, student)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith(".json"):
                continue
            lab = name[:-len(".json")]
            try:
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    r = json.load(f)
                if not isinstance(r, dict):
                    raise ValueError("not an object")
            except (OSError, ValueError) as e:
                r = {"lab": lab, "error": "unreadable result (%s)" % e}
            results.setdefault(student, {})[lab] = r
    return results


def submitted(subs):
    """{student: [lab]} of the .cu files under SUBMISSIONS."""
    out = {}
    for student in sorted(os.listdir(subs)):
        d = os.path.join(subs, student)
        if os.path.isdir(d):
            out[student] = sorted(f[:-3] for f in os.listdir(d) if f.endswith(".cu"))
    return out


def cell(entry):
    if entry is None:
        return "missing"
    if entry.get("missing"):
        return "missing"
    if "error" in entry:
        return "error: " + entry["error"]
    if entry.get("passed"):
        return "PASS"
    return "FAIL: " + ", ".join(entry.get("reasons", [])) if entry.get("reasons") else "FAIL"


def main():
    ap = argparse.ArgumentParser(description="merge autograde results into a gradebook")
    ap.add_argument("--submissions", help="the submissions folder, to find ungraded ones")
    ap.add_argument("out", help="the folder holding results/ (grade.sbatch's OUT)")
    args = ap.parse_args()
    if not os.path.isdir(args.out):
        print("gradebook.py: no folder %s" % args.out, file=sys.stderr)
        return 2
    results = load_results(args.out)
    ungraded = []
    if args.submissions:
        if not os.path.isdir(args.submissions):
            print("gradebook.py: no folder %s" % args.submissions, file=sys.stderr)
            return 2
        for student, labs in submitted(args.submissions).items():
            for lab in labs:
                if lab not in results.get(student, {}):
                    results.setdefault(student, {})[lab] = {"lab": lab, "error": "not graded"}
                    ungraded.append("%s/%s" % (student, lab))
    labs = sorted({lab for r in results.values() for lab in r})
    students = sorted(results)
    book = {"labs": labs, "students": {}, "summary": {}}
    errors = 0
    for s in students:
        row = {}
        for lab in labs:
            r = results[s].get(lab)
            if r is None:
                row[lab] = {"missing": True}
            elif "error" in r:
                row[lab] = {"error": r["error"], "file": r.get("file")}
                errors += 1
            else:
                row[lab] = {"passed": bool(r.get("passed")), "reasons": r.get("reasons", []),
                            "checks": r.get("checks", []), "file": r.get("file")}
        book["students"][s] = row
    for lab in labs:
        entries = [book["students"][s][lab] for s in students]
        book["summary"][lab] = {
            "passed": sum(1 for e in entries if e.get("passed")),
            "failed": sum(1 for e in entries if "passed" in e and not e["passed"]),
            "missing": sum(1 for e in entries if e.get("missing")),
            "errors": sum(1 for e in entries if "error" in e),
        }
    with open(os.path.join(args.out, "gradebook.json"), "w", encoding="utf-8") as f:
        json.dump(book, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(os.path.join(args.out, "gradebook.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["student"] + labs + ["passed", "of"])
        for s in students:
            row = book["students"][s]
            w.writerow([s] + [cell(row[lab]) for lab in labs] +
                       [sum(1 for lab in labs if row[lab].get("passed")), len(labs)])
    print("gradebook: %d students, %d labs: %s, %s" % (
        len(students), len(labs), os.path.join(args.out, "gradebook.csv"),
        os.path.join(args.out, "gradebook.json")))
    for lab in labs:
        sm = book["summary"][lab]
        print("  %s: %d passed, %d failed, %d missing, %d not graded" % (
            lab, sm["passed"], sm["failed"], sm["missing"], sm["errors"]))
    if errors:
        print("gradebook: %d submission%s could not be graded%s" % (
            errors, "" if errors == 1 else "s",
            ": " + ", ".join(ungraded) if ungraded else ""), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
