"""The report of ``python -m kernelxai.check``: ``report.md`` and ``report.html``, one row per notebook
(its baseline verdict, time and key results) and the differences from the baselines.

Takes the rows of :func:`~kernelxai.check.run_check`; hands on the two files.
"""

from __future__ import annotations

import datetime
import html
from pathlib import Path

from ._baseline_recording import environment
from ._notebook_baselines import baselines_dir, load_baseline
from ._reporting import atomic_write

__all__ = ["write_report"]


def _verdict(row):
    if not row["ok"]:
        return "✗ failed"
    return row["comparison"].cell()


def _report_items(rows, mode, source):
    """(header lines, table rows, detail blocks) shared by the Markdown and HTML reports."""
    env = environment()
    failed = [r["name"] for r in rows if not r["ok"]]
    drift = [r["name"] for r in rows if r["ok"] and r["comparison"].failed]
    missing = [r["name"] for r in rows if r["ok"] and r["comparison"].status == "no baseline"]
    verdict = "PASS" if not failed and not drift else "FAIL"
    header = [
        f"{verdict}: {len(rows) - len(failed)}/{len(rows)} notebooks ran ({mode} mode); "
        f"{sum(1 for r in rows if r['ok'] and r['comparison'].status == 'ok')} within their baselines"
        + (f"; drift in {', '.join(drift)}" if drift else "")
        + (f"; failed: {', '.join(failed)}" if failed else "")
        + (f"; no baseline: {', '.join(missing)}" if missing else ""),
        f"Run {datetime.datetime.now().astimezone().isoformat(timespec='seconds')} with "
        + ", ".join(f"{k} {v}" for k, v in env.items() if v),
        f"Notebooks and baselines from {source}",
    ]
    table, details = [], []
    for r in rows:
        comp = r["comparison"]
        recorded = None
        if comp is not None and comp.status in ("ok", "drift"):
            base = load_baseline(baselines_dir(source) / f"{r['name']}.json")
            recorded = base["modes"].get(comp.mode, {}).get("seconds") if base else None
        time_text = f"{r['seconds']:.0f} s" + (f" (recorded {recorded:.0f} s)" if recorded is not None else "")
        table.append((r["name"], _verdict(r), time_text, r["summary"] if r["ok"] else r["error"]))
        lines = comp.lines() if comp is not None else []
        if lines:
            details.append((r["name"], lines))
    return header, table, details


def write_report(rows, output, *, mode, source) -> tuple:
    """Write ``report.md`` and ``report.html`` in ``output``; return their paths.

    Both hold a verdict (PASS unless a notebook failed or drifted), the versions the run used,
    a table with one row per notebook (its baseline verdict, its time beside the time the
    baseline recorded, its summary or error) and, for each notebook with something to say,
    the differences from its baseline.

    Parameters
    ----------
    rows : list of dict
        As :func:`~kernelxai.check.run_check` makes them: ``name``, ``ok``, ``error``,
        ``seconds``, ``summary`` and ``comparison`` (a
        :class:`~kernelxai.check.Comparison`, or None for a notebook that failed).
    output : str or Path
        The directory to write into (created if needed); existing reports are replaced.
    mode : str
        "default" or "smoke", for the title.
    source : str or Path
        The notebooks' directory; the recorded times are read from its ``baselines/``.

    Returns
    -------
    tuple of Path
        ``(output / "report.md", output / "report.html")``.

    Examples
    --------
    >>> import tempfile
    >>> from kernelxai.check import Comparison
    >>> rows = [{"name": "01-demo", "ok": True, "error": None, "seconds": 3.2, "summary": "phi sums to f(x)",
    ...          "comparison": Comparison("01-demo", "smoke", "no baseline", note="record one")}]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     md, page = write_report(rows, tmp, mode="smoke", source=tmp)
    ...     print(md.read_text().splitlines()[8])
    | 01-demo | ⚠ none | 3 s | phi sums to f(x) |
    """
    header, table, details = _report_items(rows, mode, source)
    md = [f"# kernelxai check ({mode} mode)", "", *[f"{h}  " for h in header], "",
          "| notebook | baseline | time | key results |", "|---|---|---|---|"]
    bar = "\\|"   # a literal | inside a Markdown table cell
    md += [f"| {n} | {v} | {t} | {s.replace('|', bar)} |" for n, v, t, s in table]
    if details:
        md += ["", "## Differences", ""]
        for name, lines in details:
            md += [f"**{name}**", ""] + [f"- {line}" for line in lines] + [""]
    md += ["", "Timings are reported, never compared. Each compared number, its tolerance and the reason "
               "for it are in the notebook's baseline (baselines/NAME.json); the results JSON of each run "
               "(results/NAME.json) lists them under \"compared\"."]
    esc = html.escape
    rows_html = "\n".join(
        f"<tr class='{'bad' if v.startswith('✗') else ('warn' if v.startswith('⚠') else 'good')}'>"
        f"<td>{esc(n)}</td><td>{esc(v)}</td><td>{esc(t)}</td><td>{esc(s)}</td></tr>" for n, v, t, s in table)
    details_html = "".join(f"<h3>{esc(name)}</h3><ul>{''.join(f'<li>{esc(x)}</li>' for x in lines)}</ul>"
                           for name, lines in details)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kernelxai check ({esc(mode)} mode)</title>
<style>body{{font-family:sans-serif;max-width:75em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;vertical-align:top;text-align:left}}
.bad td:nth-child(2){{color:#b00;font-weight:bold}}.good td:nth-child(2){{color:#070}}
.warn td:nth-child(2){{color:#a60}}</style></head><body>
<h1>kernelxai check ({esc(mode)} mode)</h1>
{''.join(f'<p>{esc(h)}</p>' for h in header)}
<table><tr><th>notebook</th><th>baseline</th><th>time</th><th>key results</th></tr>
{rows_html}
</table>
{('<h2>Differences</h2>' + details_html) if details else ''}
<p>Timings are reported, never compared. Each compared number, its tolerance and the reason for it are in
the notebook's baseline (baselines/NAME.json); results/NAME.json lists them under "compared".</p>
</body></html>
"""
    output = Path(output)
    with atomic_write(output / "report.md") as fh:
        fh.write("\n".join(md) + "\n")
    with atomic_write(output / "report.html") as fh:
        fh.write(page)
    return output / "report.md", output / "report.html"

