"""The HTML report in a real browser: headless Debian chromium driven over the DevTools protocol.

The browser is driven through ``--remote-debugging-pipe`` (fd 3 in, fd 4 out, NUL-separated JSON), so no
websocket library is needed. Each page is checked for: no console errors or uncaught exceptions, no
request other than the file:// page itself, the key numbers in the DOM equal to the JSON report's, no
horizontal scrolling on a phone-sized viewport, and working table sorting. A screenshot is taken.
"""

from __future__ import annotations

import base64
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, require

sys.path.insert(0, str(Path(__file__).parent))
from _reports import real_report  # noqa: E402

import numpy as np  # noqa: E402
import ranktrust as rt  # noqa: E402
from ranktrust.reporting._fmt import out_of_order, points  # noqa: E402
from ranktrust.reporting._headline import report_dict  # noqa: E402
from ranktrust.reporting import render_html  # noqa: E402
from ranktrust.reporting._render import meta as make_meta  # noqa: E402

INSTALL = "apt-get install chromium"
DEMO = ROOT / "src" / "ranktrust" / "datasets" / "mmlupro_outputs.csv.gz"

# --------------------------------------------------------------------------- a minimal DevTools client


class Browser:
    """Headless chromium with the DevTools protocol over a pipe (stdlib only)."""

    def __init__(self, tmp: Path, timeout: float = 60.0) -> None:
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        assert exe is not None
        self.timeout = timeout
        to_child_r, self._to_child_w = os.pipe()
        self._from_child_r, from_child_w = os.pipe()

        def _fds() -> None:  # the child reads commands on fd 3 and writes replies on fd 4
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
                f"--user-data-dir={tmp / 'profile'}", "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=_fds, pass_fds=(3, 4), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.session: str | None = None

    # protocol
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self._from_child_r], [], [], left)
            if ready:
                chunk = os.read(self._from_child_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, *, session: bool = True) -> dict:
        self._id += 1
        msg: dict = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_child_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, method: str) -> dict:
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    # high level
    def open(self, url: str, width: int = 1280, height: int = 900, mobile: bool = False) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
        self.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def eval(self, expression: str):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression[:60]}...: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, path: Path, width: int = 1280, max_height: int = 16000) -> int:
        h = int(self.eval("document.documentElement.scrollHeight"))
        h = min(h, max_height)
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                    "clip": {"x": 0, "y": 0, "width": width, "height": h,
                                                             "scale": 1}})
        path.write_bytes(base64.b64decode(shot["data"]))
        return h

    def problems(self) -> tuple[list[str], list[str]]:
        """(console errors and exceptions, URLs requested)."""
        errors, urls = [], []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                errors.append(str(p.get("exceptionDetails", {}).get("text")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                errors.append(" ".join(str(a.get("value")) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                errors.append(p["entry"].get("text", ""))
            elif m == "Network.requestWillBeSent":
                urls.append(p["request"]["url"])
            elif m == "Network.loadingFailed":
                errors.append(f"loading failed: {p.get('errorText')}")
        return errors, urls

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child_w)
        os.close(self._from_child_r)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    require(executable="chromium", install=INSTALL)
    b = Browser(tmp_path_factory.mktemp("chromium"))
    yield b
    b.close()


# --------------------------------------------------------------------------- checks shared by every page

DOM_ROWS = """JSON.stringify({
  models: Array.from(document.querySelectorAll('#models-table tbody tr')).map(r => ({
    model: r.dataset.model, score: JSON.parse(r.dataset.score), ci_low: JSON.parse(r.dataset.ciLow),
    ci_high: JSON.parse(r.dataset.ciHigh), rank: JSON.parse(r.dataset.rank), tier: JSON.parse(r.dataset.tier),
    rank_low: JSON.parse(r.dataset.rankLow), rank_high: JSON.parse(r.dataset.rankHigh),
    shown: r.cells[2].firstChild.textContent.trim(), marked: r.cells[2].querySelector('.out-of-order') !== null,
    name_cell: r.cells[1].textContent})),
  headline: Object.assign({}, document.getElementById('headline').dataset),
  headline_text: document.getElementById('headline-text').textContent.trim(),
  pairs: Array.from(document.querySelectorAll('#adjacent-table tbody tr')).map(r => ({
    a: r.dataset.a, b: r.dataset.b, diff: JSON.parse(r.dataset.diff), p_adjusted: JSON.parse(r.dataset.pAdjusted)})),
  stability: Array.from(document.querySelectorAll('#stability-table tbody tr')).map(r => ({
    n: JSON.parse(r.dataset.n), p: JSON.parse(r.dataset.pTopStaysTop)})),
  power: Array.from(document.querySelectorAll('#power-table tbody tr')).map(r => ({
    gap: JSON.parse(r.dataset.gap), items_needed: JSON.parse(r.dataset.itemsNeeded)})),
  footer: Object.assign({}, document.getElementById('footer').dataset),
  command: (document.getElementById('command') || {}).textContent,
  svgs: document.querySelectorAll('svg.rt-fig').length,
  tooltips: document.querySelectorAll('svg.rt-fig title').length,
  js: document.documentElement.classList.contains('js'),
  embedded: JSON.parse((document.getElementById('ranktrust-data') || {textContent: 'null'}).textContent),
  scripts_injected: document.querySelectorAll('tbody script').length,
})"""


def _no_remote_urls(page: str) -> None:
    assert not re.search(r"""(?:src|href|action|poster|data)\s*=\s*["']?\s*(?:https?:)?//""", page, re.I)
    assert not re.search(r"""url\(\s*["']?\s*(?:https?:)?//""", page, re.I)
    assert not re.search(r"@import", page)


def _check_page(browser: Browser, path: Path, d: dict, meta: dict, shot: Path) -> dict:
    page = path.read_text(encoding="utf-8")
    _no_remote_urls(page)
    browser.open(path.as_uri())
    dom = json.loads(browser.eval(DOM_ROWS))
    height = browser.screenshot(shot)
    assert shot.stat().st_size > 20_000 and height > 1000
    errors, urls = browser.problems()
    assert errors == []
    # the page itself and inline data: images (the heatmap), nothing from the network
    assert urls and urls[0] == path.as_uri()
    assert all(u == path.as_uri() or u.startswith("data:") for u in urls), urls
    assert dom["js"], "the inline script did not run"
    assert dom["scripts_injected"] == 0

    # the leaderboard: every model, in order, exact JSON values
    assert len(dom["models"]) == len(d["models"])
    marks = out_of_order(d["models"])   # the one rule of the ↑ beside a score higher than a row above it
    for got, want, mark in zip(dom["models"], d["models"], marks):
        assert got["model"] == want["model"] == got["name_cell"]
        for k in ("score", "ci_low", "ci_high", "rank", "tier", "rank_low", "rank_high"):
            assert got[k] == want.get(k), (want["model"], k)
        assert got["shown"] == points(want["score"])       # the one digit rule: as the terminal prints it
        assert got["marked"] == mark, want["model"]
    h = d["headline"]
    assert dom["headline_text"] == h["text"]
    assert dom["headline"]["top"] == h["top"]
    for k, attr in (("diff", "diff"), ("p_adjusted", "pAdjusted"), ("p_value", "pValue"),
                    ("rank_low", "rankLow"), ("rank_high", "rankHigh"), ("separable", "separable")):
        assert json.loads(dom["headline"][attr]) == h.get(k), k
    adjacent = d["pairs"] if d["pairs_scope"] == "adjacent" else None
    if adjacent is not None:
        assert [(p["a"], p["b"], p["diff"], p["p_adjusted"]) for p in dom["pairs"]] == \
               [(p["a"], p["b"], p["diff"], p["p_adjusted"]) for p in adjacent]
    if d.get("stability"):
        assert [(s["n"], s["p"]) for s in dom["stability"]] == \
               [(s["n"], s["p_top_stays_top"]) for s in d["stability"]["by_size"]]
    if d.get("power"):
        assert dom["power"] == [{"gap": r["gap"], "items_needed": r["items_needed"]} for r in d["power"]["table"]]
    assert json.loads(dom["footer"]["seed"]) == meta["seed"]
    assert json.loads(dom["footer"]["inputHash"]) == meta["input_hash"]
    assert dom["command"] == meta["command"]
    assert dom["svgs"] >= 4 and dom["tooltips"] >= min(len(d["models"]), 50)
    if dom["embedded"] is not None:
        assert dom["embedded"]["models"] == d["models"]
    return dom


def _check_interaction(browser: Browser) -> None:
    # sorting: click "score" -> ascending, again -> descending
    click = """(() => { const t = document.getElementById('models-table');
        t.tHead.rows[0].cells[2].click();
        return Array.from(t.tBodies[0].rows).map(r => JSON.parse(r.dataset.score)); })()"""
    up = browser.eval(click)
    assert up == sorted(up)
    down = browser.eval(click)
    assert down == sorted(up, reverse=True)
    # filter
    shown = browser.eval("""(() => { const i = document.querySelector('input[data-filter]');
        i.value = 'zzz-no-such-model'; i.dispatchEvent(new Event('input'));
        return Array.from(document.querySelectorAll('#models-table tbody tr')).filter(r => !r.hidden).length; })()""")
    assert shown == 0


def _check_phone(browser: Browser, path: Path) -> None:
    browser.open(path.as_uri(), width=390, height=844, mobile=True)
    overflow = browser.eval("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page scrolls sideways on a phone by {overflow}px"
    errors, _ = browser.problems()
    assert errors == []


# --------------------------------------------------------------------------- the tests

def _meta(cmd: str) -> dict:
    m = make_meta("report", seed=0, input_hash="sha256:0123456789abcdef", command=cmd)
    return m


@pytest.mark.browser
def test_real_report_in_browser(browser, tmp_path):
    d = real_report(12, long_names=True)
    meta = _meta("ranktrust report synthetic.csv --out report.html")
    path = tmp_path / "synthetic.html"
    path.write_text(render_html(d, meta), encoding="utf-8")
    dom = _check_page(browser, path, d, meta, tmp_path / "synthetic.png")
    assert any("<script>" in m["model"] for m in dom["models"])  # shown as text, not run
    for sid in ("microbench", "repeats", "sensitivity", "notes", "methods"):
        assert browser.eval(f"!!document.getElementById('{sid}')")
    _check_interaction(browser)
    _check_print(browser, tmp_path / "synthetic.pdf")
    _check_phone(browser, path)


def _check_print(browser: Browser, pdf: Path) -> None:
    browser.send("Emulation.setEmulatedMedia", {"media": "print"})
    hidden = browser.eval("""[getComputedStyle(document.querySelector('nav.toc')).display,
        getComputedStyle(document.querySelector('.tools')).display,
        getComputedStyle(document.querySelector('.table-wrap')).overflowY]""")
    assert hidden == ["none", "none", "visible"]
    data = browser.send("Page.printToPDF", {"printBackground": True})["data"]
    pdf.write_bytes(base64.b64decode(data))
    assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 50_000
    browser.send("Emulation.setEmulatedMedia", {"media": ""})


def _real_report(m):
    import ranktrust as rt

    assert callable(rt.report) and rt.report.__name__ == "report"  # the function, whatever was imported first
    return rt.report(m, rng=0)


@pytest.mark.browser
def test_bundled_demo_report_in_browser(browser, tmp_path, monkeypatch):
    import ranktrust as rt

    monkeypatch.chdir(ROOT)  # the report names its source as `make demo` does: a relative path
    m = rt.read(str(DEMO.relative_to(ROOT)), align="pairwise")
    rep = _real_report(m)
    d = json.loads(json.dumps(report_dict(rep)))   # the JSON the CLI writes: to_dict() + headline.text
    meta = _meta(f"ranktrust report {DEMO.name} --align pairwise --seed 0 --out report.html")
    path = tmp_path / "demo.html"
    path.write_text(render_html(rep, meta), encoding="utf-8")
    shot = tmp_path / "demo.png"
    _check_page(browser, path, d, meta, shot)
    _check_interaction(browser)
    _check_phone(browser, path)
    out = os.environ.get("RANKTRUST_SCREENSHOT_DIR")
    if out:  # refresh docs/img/demo-report.png: RANKTRUST_SCREENSHOT_DIR=docs/img pytest tests/test_html_report.py
        browser.open(path.as_uri())
        browser.screenshot(Path(out) / "demo-report.png", max_height=2100)


@pytest.mark.browser
def test_420_models_report_in_browser(browser, tmp_path, gpqa_path):
    import ranktrust as rt

    m = rt.read(str(gpqa_path))
    rep = _real_report(m)
    d = json.loads(json.dumps(report_dict(rep)))   # the JSON the CLI writes: to_dict() + headline.text
    assert d["n_models"] == 420
    meta = _meta(f"ranktrust report {gpqa_path.name} --out report.html")
    path = tmp_path / "gpqa.html"
    page = render_html(d, meta)
    path.write_text(page, encoding="utf-8")
    assert len(page) < 8_000_000
    _check_page(browser, path, d, meta, tmp_path / "gpqa.png")
    forest_lines = browser.eval("document.querySelectorAll('#fig-forest g[id^=\"rt-forest-\"]').length")
    assert forest_lines == 50
    assert "top 50 of 420" in browser.eval("document.getElementById('forest-note').textContent")
    _check_phone(browser, path)


# --------------------------------------------------------------------------- without a browser

def test_html_is_self_contained_and_escaped():
    d = real_report(6, long_names=True)
    page = render_html(d, _meta("ranktrust report x.csv"))
    _no_remote_urls(page)
    assert page.startswith("<!DOCTYPE html>")
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
    assert "a note with &lt;b&gt;markup&lt;/b&gt;" in page
    assert "<link" not in page and "<img" not in page
    assert page.count("<svg") == 9
    assert "@media print" in page and "@media (max-width" in page
    for ref in ("arXiv:2411.00640", "Towards Data Science", "Review of Economic Studies", "ICLR 2026",
                "arXiv:2506.04734", "Anchor Points", "tinyBenchmarks", "arXiv:2107.03374"):
        assert ref in page
    from markupsafe import escape

    from ranktrust.reporting.renderers._subsets import recommendation_sentences

    advice = recommendation_sentences(d["microbench"]["recommendation"])  # microbench advice, in the page
    assert advice and all(f"<li>{escape(line)}</li>" in page for line in advice)
    r0 = d["repeats"]["models"][0]
    assert f'<td class="num" data-sort="{json.dumps(r0["pass_at"]["1"]["estimate"])}">' in page  # pass@1
    # machine-readable values are the exact JSON text
    r = d["models"][0]
    assert f'data-score="{json.dumps(r["score"])}"' in page


def test_html_renders_only_present_sections():
    d = real_report(5, extras=False)
    for k in ("stability", "rank_sets", "split_half", "power", "pair_matrix"):
        d[k] = None
    for r in d["models"]:
        r["rank_low"] = r["rank_high"] = None
    page = render_html(d, _meta("x"))
    for sid in ("stability", "power", "microbench", "repeats", "sensitivity", "ranks"):
        assert f'id="{sid}"' not in page
    assert 'id="leaderboard"' in page and 'id="pairs"' in page
    # rank ranges come from the leaderboard rows when rank_sets is absent
    d["models"][0]["rank_low"], d["models"][0]["rank_high"] = 1, 2
    assert 'id="ranks"' in render_html(d, _meta("x"))


def test_html_bad_input():
    with pytest.raises(TypeError, match="report"):
        render_html(42, {})
    with pytest.raises(ValueError, match="models"):
        render_html({"title": "x"}, {})



def test_a_bidi_override_in_a_name_is_shown_escaped_and_kept_exact_in_data():
    """D18: U+202E in a model name cannot reverse the page: shown escaped (as in the terminal) everywhere the
    page shows text, exact in data-* attributes and the embedded JSON."""
    names = ["LTR \u202eedirrevo", "plain", "other"]
    rng = np.random.default_rng(0)
    m = rt.ScoreMatrix.from_array((rng.random((3, 400)) < np.array([0.7, 0.5, 0.3])[:, None]).astype(float),
                                  models=names)
    d = report_dict(rt.report(m, stability_n_resamples=50))
    page = render_html(d, _meta("x"))
    shown = page.split('<script type="application/json"', 1)[0]
    assert "LTR \\u202eedirrevo" in shown
    assert 'data-model="LTR \u202eedirrevo"' in shown and 'data-top="LTR \u202eedirrevo"' in shown
    assert "\u202e" not in re.sub(r'="[^"]*"', "", shown)          # only inside attribute values


@pytest.mark.parametrize("fmt", ["text", "md", "html"])
def test_one_number_one_string_in_every_format(fmt):
    """issue 23 §3: a score prints the same in the terminal, Markdown, the HTML report and the notebook (the
    review's 67.70 vs 67.7): fmt chooses the digits, no caller does."""
    from ranktrust.reporting import _fmt as F
    from ranktrust.reporting._notebook import _cell
    from ranktrust.reporting.renderers import to_string

    rng = np.random.default_rng(2)
    m = rt.ScoreMatrix.from_array((rng.random((3, 500)) < np.array([0.744, 0.6, 0.5])[:, None]).astype(float),
                                  models=["top", "mid", "low"])
    rep = rt.report(m, stability_n_resamples=50)
    top = rep.to_dict()["models"][0]
    want = F.points(top["score"])
    assert want == f"{100 * top['score']:.{F.POINTS_DIGITS}f}"
    out = to_string(rep, fmt)
    assert want in out and F.points(top["ci_low"]) in out
    if fmt == "html":
        assert f">{want}</td>" in out                       # the table cell, not only a data-* attribute
    assert _cell(top["score"], "score") == want             # the notebook's tables


def test_microbench_table_marks_thin_bins(swebench):
    """QA D7: in the HTML micro-benchmark table an MDAD read off a gap bin with fewer than pairs_needed pairs carries
    †, with the footnote; the marks are exactly the JSON rows with mdad_pairs < pairs_needed (SWE-bench: 7 targets)."""
    rep = rt.report(swebench, microbench=True, microbench_n_resamples=5, stability_n_resamples=20)
    page = render_html(rep, _meta("ranktrust report swebench.csv --microbench"))
    mb = rep.to_dict()["microbench"]
    need = mb["recommendation"]["pairs_needed"]
    thin = sum(r["status"] == "ok" and r["mdad_pairs"] < need for r in mb["mdad"])
    assert thin > 0 and page.count(">†</span>") == thin
    assert f"† read off a gap bin with fewer than {need} target pairs" in page


def test_the_all_pairs_page_shows_the_neighbours_as_the_adjacent_report_does():
    """issue 23 §4 (review: "adjacent pairs from the all-pairs table, with sign flip | 2 places"): the page's
    "Neighbours in the ranking" of an all-pairs report are the rows the adjacent report holds (one rule,
    ``leaderboard.display_pair_rows`` over ``adjacent_rows``, which ``display_pairs`` uses for the table): the same
    pairs, upper model first, the same numbers; a stored pair the other way round is flipped (A/B, only_a/only_b,
    the difference and its CI negated)."""
    from ranktrust.leaderboard import display_pair_rows

    rng = np.random.default_rng(5)
    # 4 models whose display order is not their stored order (the table stores each pair by score)
    m = rt.ScoreMatrix.from_array((rng.random((4, 600)) < np.array([0.5, 0.7, 0.52, 0.3])[:, None]).astype(float),
                                  models=["c", "a", "b", "d"])
    adj = report_dict(rt.report(m, stability_n_resamples=20))
    every = report_dict(rt.report(m, stability_n_resamples=20, all_pairs=True))
    assert every["pairs_scope"] == "all" and len(every["pairs"]) == 6 and adj["pairs_scope"] == "adjacent"
    shown = display_pair_rows(every)
    order = [r["model"] for r in every["models"]]
    assert [(p["a"], p["b"]) for p in shown] == [(p["a"], p["b"]) for p in adj["pairs"]] == list(zip(order, order[1:]))
    for got, want in zip(shown, adj["pairs"]):
        assert {k: got[k] for k in ("n_items", "only_a", "only_b")} == {k: want[k] for k in ("n_items", "only_a", "only_b")}
        # the same floats, negated or not (an exact sign flip): compared within 4 ulps all the same, as the
        # adjacent table's CI is recomputed from its rows (PairTable.intervals)
        np.testing.assert_allclose([got[k] for k in ("diff", "se", "ci_low", "ci_high", "p_value", "p_adjusted")],
                                   [want[k] for k in ("diff", "se", "ci_low", "ci_high", "p_value", "p_adjusted")],
                                   rtol=4 * np.finfo(float).eps)
    assert display_pair_rows(adj) == adj["pairs"]                       # an adjacent report's pairs as they are
    # a pair stored the other way round is flipped: swap a stored row and the shown row is unchanged
    rows = [dict(p) for p in every["pairs"]]
    k = next(n for n, p in enumerate(rows) if (p["a"], p["b"]) == tuple(order[1:3]))
    p = rows[k]
    rows[k] = {**p, "a": p["b"], "b": p["a"], "only_a": p["only_b"], "only_b": p["only_a"], "diff": -p["diff"],
               "ci_low": -p["ci_high"], "ci_high": -p["ci_low"]}
    assert display_pair_rows({**every, "pairs": rows}) == shown
    page = render_html(every, _meta("x"))
    a, b = order[1:3]
    assert page.count(f'<tr data-a="{a}" data-b="{b}"') == 2 and f'<tr data-a="{b}" data-b="{a}"' not in page
