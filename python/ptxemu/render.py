"""The blocks a %%cuda cell shows for what ptxemu reported - races, faults, deadlocks, time
limits, uninitialized reads - with the cell's own lines quoted, as plain text and as HTML."""

import html
import os
import shutil
import subprocess

from .run import CELL_FILE, FIRST_LINE

_TITLES = {
    "fault": "Fault",
    "deadlock": "Deadlock",
    "timeout": "Time limit",
    "uninitialized-read": "Uninitialized read",
}
# kinds that are not shown as blocks: the run's own bookkeeping
_QUIET = {"launch", "profile", "leak", "api_error", "warning"}


def demangle(names):
    """C++ names as the source wrote them (c++filt, when binutils is there)."""
    names = list(names)
    tool = shutil.which("c++filt")
    if not tool or not names:
        return {n: n for n in names}
    try:
        p = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True,
                           timeout=10)
        out = p.stdout.splitlines()
        if len(out) == len(names):
            return dict(zip(names, out))
    except (OSError, subprocess.SubprocessError):
        pass
    return {n: n for n in names}


def _is_cell(path):
    return bool(path) and os.path.basename(path) == CELL_FILE


def _where(obj, cell_lines):
    """("cell line 12", "  s = s + 10;") for a place in the cell, else its file:line or PTX line."""
    f, line = obj.get("src_file"), obj.get("src_line")
    if _is_cell(f) and isinstance(line, int):
        i = line - FIRST_LINE   # the cell's body starts at its line FIRST_LINE
        code = cell_lines[i].strip() if 0 <= i < len(cell_lines) else ""
        return "cell line %d" % line, code
    if f and line:
        return "%s:%s" % (os.path.basename(f), line), ""
    if obj.get("ptx_line"):
        return "PTX line %s" % obj["ptx_line"], ""
    return "", ""


def _xyz(v):
    return "(%s)" % ",".join(str(x) for x in v) if isinstance(v, list) else str(v)


def is_problem(rep):
    return rep.get("kind") not in _QUIET


class Block:
    """One report as a title, a few lines (each may quote a cell line) and a note."""

    def __init__(self, title, lines, note=""):
        self.title, self.lines, self.note = title, lines, note

    def text(self):
        out = [self.title]
        for what, where, code in self.lines:
            s = "  " + what
            if where:
                s += " at " + where
            if code:
                s += ":  " + code
            out.append(s)
        if self.note:
            out.append("  " + self.note)
        return "\n".join(out)

    def html(self):
        rows = []
        for what, where, code in self.lines:
            r = html.escape(what)
            if where:
                r += " at <b>%s</b>" % html.escape(where)
            if code:
                r += ": <code>%s</code>" % html.escape(code)
            rows.append("<li>%s</li>" % r)
        note = "<div style='color:#555'>%s</div>" % html.escape(self.note) if self.note else ""
        return ("<div style='border-left:4px solid #c0392b;background:#fdf2f0;padding:6px 10px;"
                "margin:4px 0;font-family:monospace'><b>%s</b><ul style='margin:4px 0'>%s</ul>%s"
                "</div>" % (html.escape(self.title), "".join(rows), note))


def blocks(reports, cell_source, replay_hint=""):
    """The blocks for the problems among reports (JSON objects of PTXEMU_REPORT)."""
    cell_lines = cell_source.splitlines()
    probs = [r for r in reports if is_problem(r)]
    names = demangle(sorted({r.get("kernel", "") for r in probs if r.get("kernel")} |
                            {a.get("kernel", "") for r in probs for a in r.get("accesses", [])
                             if a.get("kernel")}))
    out = []
    for r in probs:
        kind = r.get("kind", "?")
        kernel = names.get(r.get("kernel", ""), r.get("kernel", ""))
        seed = r.get("seed")
        if "accesses" in r:   # a race or an async-copy / mbarrier misuse
            space = r.get("space", "")
            title = "Race: %s%s in kernel %s" % (kind, " in %s memory" % space if space else "",
                                                 kernel)
            lines = []
            for a in r["accesses"]:
                where, code = _where(a, cell_lines)
                who = "%s by thread %s of block %s" % (a.get("op", "access"), _xyz(a.get("thread")),
                                                       _xyz(a.get("block")))
                lines.append((who, where, code))
            note = "seed %s" % seed if seed else ""
            if replay_hint and seed:
                note += "; %s" % replay_hint.format(seed=seed)
            out.append(Block(title, lines, note))
            continue
        title = "%s in kernel %s" % (_TITLES.get(kind, kind.capitalize()), kernel)
        lines = []
        if kind == "fault" or "thread" in r:
            where, code = _where(r, cell_lines)
            lines.append(("%s, thread %s of block %s" % (r.get("message", ""), _xyz(r.get("thread")),
                                                        _xyz(r.get("block"))), where, code))
        else:
            if r.get("message"):
                lines.append((r["message"], "", ""))
            for w in r.get("warps", [])[:8]:
                where, code = _where(w, cell_lines)
                who = "warp %s of block %s %s" % (w.get("warp", "?"), _xyz(w.get("block")),
                                                  w.get("state", ""))
                lines.append((who.strip(), where, code))
            if len(r.get("warps", [])) > 8:
                lines.append(("... and %d more warps" % (len(r["warps"]) - 8), "", ""))
        out.append(Block(title, lines, "seed %s" % seed if seed else ""))
    return out


def strip_reported(stderr):
    """ptxemu's stderr without the lines the blocks show (races, faults)."""
    keep = []
    for line in stderr.splitlines():
        if line.startswith("ptxemu: race:") or line.startswith("ptxemu: kernel "):
            continue
        if line.startswith("ptxemu: profile:"):
            continue
        keep.append(line)
    return "\n".join(keep)
