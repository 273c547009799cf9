"""The class report: how the class did, and which misconceptions it holds (from the checks' mistake ids, each shown
with its meaning from autograder/engine/mistakes.py)."""

from __future__ import annotations

import base64
import html
import io
from collections import Counter
from pathlib import Path

from autograder.engine import mistakes
from autograder.engine import mistakes as mistakes_table
from autograder import paths


def _figure_html(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    data = base64.b64encode(buffer.getvalue()).decode()
    return f'<img alt="{html.escape(fig.axes[0].get_title())}" src="data:image/png;base64,{data}">'


UNDECLARED = "undeclared-code"  # a code none of the course's checks declares: the learner's own Mistake


def declared(code) -> str:
    """`code` if the course declares it (engine/mistakes.py), else UNDECLARED: a learner's code can raise
    Mistake with any text, and a chart label or a table cell is no place for the learner's text."""
    return code if isinstance(code, str) and code in mistakes_table.MISTAKES else UNDECLARED


def _late_table(reports: list[dict]) -> str:
    """The late submissions, why each is late (collect's record) and what the late policy took."""
    late = [r for r in reports if r.get("lateness", {}).get("late")]
    if not late:
        return "<p>No late submissions recorded.</p>"
    rows = "".join(f"<tr><td>{html.escape(r['student'])}</td><td>{html.escape(r['notebook'])}</td>"
                   f"<td>{html.escape(r['lateness'].get('evidence', ''))}</td>"
                   f"<td>{r.get('raw_score', r['score']):g}</td><td>-{r.get('late_penalty', 0):g}</td>"
                   f"<td>{r['score']:g}</td></tr>" for r in late)
    policy = late[0].get("late_policy", {})
    said = {"none": "none (no points lost)", "zero": "zero (a late submission scores 0)",
            "subtract": f"subtract ({policy.get('per_hour', 0):g} points per started hour late)"}
    return (f"<h2>Late submissions ({len(late)})</h2><p>Late policy: {said.get(policy.get('policy'), 'none')}.</p>"
            "<table><tr><th>student</th><th>notebook</th><th>why late</th><th>score</th><th>penalty</th>"
            f"<th>after penalty</th></tr>{rows}</table>")


def _meaning(code: str) -> str:
    return mistakes.meaning(code) or "a code no check of the course declares (the learner's code raised it)"


def summarize(reports: list[dict]) -> dict:
    totals: dict[str, list[float]] = {}
    failed_by_test: Counter = Counter()
    mistakes: Counter = Counter()
    for r in reports:
        t = totals.setdefault(r["student"], [0.0, 0.0])
        t[0] += r["score"]
        t[1] += r["max_score"]
        for c in r["cells"]:
            if c["status"] != "passed":
                failed_by_test[c["grade_id"]] += 1
                mistakes[declared(c.get("mistake") or c["status"])] += 1
    return {"totals": totals, "failed_by_test": failed_by_test, "mistakes": mistakes}


def write(reports: list[dict], path: Path | None = None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path or paths.grading_home() / "class-report.html")
    summary = summarize(reports)
    parts = [f"<h1>Class report</h1><p>{len(summary['totals'])} students, {len(reports)} graded notebooks.</p>"]
    plt.rcParams.update({"font.size": 12, "text.parse_math": False})  # a label is text, never mathtext
    if summary["totals"]:
        percent = [100 * s / m if m else 0 for s, m in summary["totals"].values()]
        fig, ax = plt.subplots(figsize=(7, 3.5))
        ax.hist(percent, bins=10, range=(0, 100), color="#4C72B0", edgecolor="white")
        ax.set(title="Score distribution", xlabel="total score (%)", ylabel="students")
        parts.append(_figure_html(fig))
        plt.close(fig)
    for key, title, xlabel in (("failed_by_test", "Students failing each test", "students who failed"),
                               ("mistakes", "Mistakes the grader diagnosed", "failed tests")):
        counts = summary[key].most_common(25)
        if not counts:
            continue
        fig, ax = plt.subplots(figsize=(8, 0.35 * len(counts) + 1.2))
        labels, values = zip(*reversed(counts))
        ax.barh(labels, values, color="#DD8452")
        ax.set(title=title, xlabel=xlabel)
        parts.append(_figure_html(fig))
        plt.close(fig)
        if key == "mistakes":
            rows = "".join(f"<tr><td><code>{html.escape(k)}</code></td><td>{html.escape(_meaning(k))}</td>"
                           f"<td>{v}</td></tr>" for k, v in counts)
            parts.append(f"<table><tr><th>mistake</th><th>meaning</th><th>count</th></tr>{rows}</table>")
        else:
            rows = "".join(f"<tr><td><code>{html.escape(k)}</code></td><td>{v}</td></tr>" for k, v in counts)
            parts.append(f"<table><tr><th>test</th><th>count</th></tr>{rows}</table>")
    parts.append(_late_table(reports))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("<!doctype html><meta charset='utf-8'><title>Class report</title>"
                    "<style>body{font-family:sans-serif;max-width:60em;margin:auto}td,th{padding:2px 8px}</style>"
                    + "\n".join(parts))
    return path
