"""Screenshots for the README: the chat with an open card (1400×900), a card on a phone (390×844),
the snapshot opened in place, and the 知识库 page; Debian's chromium through Playwright.

Usage: ``python scripts/screenshots.py OUT_DIR [--suffix=-after]``. Starts this checkout's app
(``tests.browser.test_browser.run_app``: a fresh data folder; here with the ``hash`` embedder), asks one
question and writes ``chat{suffix}.png``, ``snapshot{suffix}.png``, ``phone-card{suffix}.png`` and
``library{suffix}.png`` (the viewport; wide shots shrunk to 2/3 and all quantized to 128 colours
with Pillow, so each stays small).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.test_browser import CHROMIUM, FLAGS, click_in_card, open_card, run_app, wait_until_still  # noqa: E402
from tests.browser.test_browser_cards import ask_question  # noqa: E402


def _save(page, path: Path) -> None:  # noqa: ANN001
    from PIL import Image

    page.screenshot(path=str(path))
    img = Image.open(path)
    if img.width > 1000:
        img = img.resize((img.width * 2 // 3, img.height * 2 // 3))
    img.convert("P", palette=Image.Palette.ADAPTIVE, colors=128).save(path, optimize=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--suffix", default="")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data, run_app(Path(data), YINZHENG_EMBEDDING="hash") as url:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            ask_question(page, url)
            sup = page.locator("sup.yz-cite").first
            open_card(sup)
            page.wait_for_timeout(500)
            _save(page, args.out / f"chat{args.suffix}.png")
            click_in_card(sup, "button.yz-card-open")
            page.wait_for_timeout(800)
            _save(page, args.out / f"snapshot{args.suffix}.png")
            page.goto(f"{url}/library", wait_until="domcontentloaded")
            page.get_by_role("heading", name="知识库").wait_for(timeout=60_000)
            page.wait_for_timeout(3000)
            _save(page, args.out / f"library{args.suffix}.png")
            phone = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
            ask_question(phone, url)
            sup = phone.locator("sup.yz-cite").first
            wait_until_still(sup)  # the chat scrolls to its bottom while the run adds the answer's rows
            sup.scroll_into_view_if_needed()
            sup.locator("button").first.tap()
            phone.wait_for_timeout(800)
            _save(phone, args.out / f"phone-card{args.suffix}.png")
            browser.close()


if __name__ == "__main__":
    main()
