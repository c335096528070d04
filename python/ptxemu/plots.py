"""The pictures of %%cuda --timeline and --profile, drawn with matplotlib (Agg, to PNG bytes,
so that they need no display and land in the notebook as images)."""

import io


def _figure(width, height):
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


_COLORS = {"warp": "#2e86c1", "wait": "#f5b041", "async": "#8e44ad", "launch": "#27ae60",
           "memcpy": "#c0392b"}
MAX_WARP_ROWS = 32   # more warps than this: their counts over time instead of a row each
BINS = 400


def _intervals(events):
    """Row names and the bars of each row: {(pid, tid): [(ts, dur, kind, name)]}."""
    names, bars = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e.get("pid"), e.get("tid"))] = e.get("args", {}).get("name", "")
    for e in events:
        if e.get("ph") != "X" or e.get("cat") == "block":   # worker rows repeat the warps'
            continue
        key, cat = (e.get("pid"), e.get("tid")), e.get("cat", "")
        kind = cat if cat in _COLORS else "async"
        bars.setdefault(key, []).append((float(e.get("ts", 0.0)), float(e.get("dur", 0.0)), kind,
                                         e.get("name", "")))
    return names, bars


def _occupancy(bars, kind, t0, t1):
    """The average number of bars of kind at each of BINS steps between t0 and t1."""
    import numpy as np
    edges = np.linspace(t0, t1, BINS + 1)
    width = (t1 - t0) / BINS
    total = np.zeros(BINS)
    for ts, dur, k, _ in bars:
        if k != kind or dur <= 0:
            continue
        a, b = ts, ts + dur
        i0 = max(0, min(BINS - 1, int((a - t0) / width)))
        i1 = max(0, min(BINS - 1, int((b - t0) / width)))
        for i in range(i0, i1 + 1):
            lo, hi = max(a, edges[i]), min(b, edges[i + 1])
            if hi > lo:
                total[i] += hi - lo
    return edges[:-1] + width / 2, total / width


def timeline_png(trace, names=None):
    """The timeline (docs/timeline.md) as a picture: the host's launches and memory copies
    on top; under them one row a warp (runs and waits) and a row a block's asynchronous
    copies, or, for grids of more warps than MAX_WARP_ROWS, how many warps run and wait over
    time. Returns (png bytes, a one-line summary), or (None, why) when there is nothing."""
    names = names or {}
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace or []
    rows, bars = _intervals(events)
    if not bars:
        return None, "the timeline is empty"
    host = sorted(k for k in bars if k[0] == 0)
    device = sorted(k for k in bars if k[0] >= 100)
    warp_rows = [k for k in device if "warp" in rows.get(k, "")]
    copy_rows = [k for k in device if k not in warp_rows]
    every = [b for k in bars for b in bars[k]]
    t0 = min(b[0] for b in every)
    t1 = max(b[0] + b[1] for b in every)
    if t1 <= t0:
        t1 = t0 + 1.0
    n_launch = sum(1 for k in host for b in bars[k] if b[2] == "launch")
    n_copy = sum(1 for k in host for b in bars[k] if b[2] == "memcpy")
    n_async = sum(len(bars[k]) for k in copy_rows)
    detailed = len(warp_rows) <= MAX_WARP_ROWS
    gantt = host + (warp_rows + copy_rows if detailed else [])
    height = 1.0 + 0.3 * len(gantt) + (0 if detailed else 2.6)
    fig = _figure(10, height)
    if detailed:
        ax = fig.add_subplot(111)
        axc = None
    else:
        gs = fig.add_gridspec(2, 1, height_ratios=[max(1, len(gantt)), 5], hspace=0.35)
        ax, axc = fig.add_subplot(gs[0]), fig.add_subplot(gs[1])
    labels = []
    for y, key in enumerate(gantt):
        for ts, dur, kind, name in bars[key]:
            ax.broken_barh([(ts, max(dur, (t1 - t0) / 2000))], (y - 0.4, 0.8),
                           facecolors=_COLORS.get(kind, "#7f8c8d"))
            if kind == "launch" and dur > (t1 - t0) / 8:
                ax.text(ts + dur / 2, y, names.get(name, name), ha="center", va="center", fontsize=7,
                        color="white", clip_on=True)
        label = rows.get(key, "")
        labels.append("host: " + label if key[0] == 0 else "launch %d: %s" % (key[0] - 100, label))
    ax.set_yticks(range(len(gantt)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_ylim(len(gantt) - 0.5, -0.5)
    ax.set_xlim(t0, t1)
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=_COLORS[k], label=k) for k in _COLORS], fontsize=7,
              loc="lower left", bbox_to_anchor=(0, 1.0), ncol=5, frameon=False)
    ax.set_title("ptxemu timeline (emulated clock: one warp instruction is 1 ns)", pad=18)
    if axc is not None:
        wbars = [b for k in warp_rows for b in bars[k]]
        x, running = _occupancy(wbars, "warp", t0, t1)
        _, waiting = _occupancy(wbars, "wait", t0, t1)
        axc.stackplot(x, running, waiting, colors=[_COLORS["warp"], _COLORS["wait"]],
                      labels=["warps running", "warps waiting"])
        axc.set_xlim(t0, t1)
        axc.set_ylabel("warps")
        axc.legend(fontsize=7, loc="upper right")
        axc.set_xlabel("emulated time (us)")
    else:
        ax.set_xlabel("emulated time (us)")
    summary = "timeline: %d launch%s, %d warp%s, %d memory cop%s, %d asynchronous cop%s" % (
        n_launch, "" if n_launch == 1 else "es", len(warp_rows), "" if len(warp_rows) == 1 else "s",
        n_copy, "y" if n_copy == 1 else "ies", n_async, "y" if n_async == 1 else "ies")
    if not detailed:
        summary += " (warps drawn as counts over time)"
    return _png(fig), summary


def profile_png(profiles, names=None):
    """A bar a launch: the estimated H100 time of --profile (docs/profile.md), labelled with
    what bounds it. Returns (png bytes, a text table), or (None, why)."""
    names = names or {}
    if not profiles:
        return None, "no kernel was launched"
    labels, values, bounds = [], [], []
    for p in profiles:
        k = names.get(p.get("kernel", ""), p.get("kernel", "?"))
        labels.append("%s (launch %s)" % (k, p.get("launch", "?")))
        values.append(p.get("estimated_h100_ns", 0) / 1000.0)
        bounds.append(p.get("bound", ""))
    fig = _figure(8, 1.0 + 0.45 * len(labels))
    ax = fig.add_subplot(111)
    ax.barh(range(len(values)), values, color="#2e86c1")
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    for i, (v, b) in enumerate(zip(values, bounds)):
        ax.text(v, i, " %.1f us, %s bound" % (v, b), va="center", fontsize=7)
    ax.set_xlabel("estimated H100 time (us)")
    ax.set_title("ptxemu --profile: estimated H100 time per launch")
    ax.set_xlim(0, max(values) * 1.6 if max(values) > 0 else 1)
    table = ["%-40s %10s %8s %8s  %s" % ("launch", "est. us", "lanes", "occup.", "bound")]
    for p, label, v in zip(profiles, labels, values):
        wi, ti = p.get("warp_instructions", 0), p.get("thread_instructions", 0)
        lanes = ti / wi if wi else 0.0
        table.append("%-40s %10.1f %8.1f %7.0f%%  %s" % (label[:40], v, lanes,
                     100.0 * p.get("achieved_occupancy", 0), p.get("bound", "")))
    return _png(fig), "\n".join(table)
