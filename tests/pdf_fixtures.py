"""PDFs built for the tests with fpdf2 (issue 29): Chinese and English text over several pages, a
heading set in a larger font, a sentence that runs over a page break, a table, Kangxi-radical
look-alikes as a browser's print of a web page writes them, and a placeholder metadata title.

The CJK font is the system's (fontconfig ``fc-list :lang=zh``, Noto CJK from ``make browser``);
tests that need it skip without it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

#: The sentence as stored in the PDF: 手 and 用 are the Kangxi radicals U+2F3F and U+2F64.
KANGXI_SENTENCE = "测试\u2f3f机每次最多借\u2f64七天。"
PLAIN_SENTENCE = "测试手机每次最多借用七天。"
#: The sentence written at the bottom of page 1 so that it runs onto page 2.
CROSSING = (
    "借用人应在归还前删除个人数据并恢复出厂设置，设备管理员会在收到设备后的两个工作日内完成检查，"
    "检查无误后才会在系统中登记为已归还，未删除数据的设备会退回借用人重新处理，"
    "逾期未还会暂停借用资格一个月。"
)
ENGLISH = "Test phones can be borrowed for at most seven days."
TABLE = [("型号", "借用天数"), ("iPhone 15", "7"), ("Pixel 8", "5")]


def cjk_font() -> str:
    """The path of a CJK font (fontconfig), or skip the test."""
    if shutil.which("fc-list") is None:
        pytest.skip("fontconfig (fc-list) is not installed")
    listed = subprocess.run(["fc-list", ":lang=zh", "file"], capture_output=True, text=True, check=False).stdout
    files = sorted({line.split(":")[0].strip() for line in listed.splitlines() if line.strip()})
    files = [f for f in files if f.lower().endswith((".ttc", ".ttf", ".otf")) and Path(f).is_file()]
    if not files:
        pytest.skip("no CJK font (make browser installs fonts-noto-cjk)")
    return min(files, key=lambda f: ("sans" not in f.lower(), "regular" not in f.lower(), f))


def policy_pdf(title: str | None = "in.html") -> bytes:
    """Three A4 pages: heading 设备借用规定 (20 pt), the Kangxi sentence and English, a subheading
    逾期处理 (15 pt), :data:`CROSSING` over the break from page 1 to 2, a table on page 3."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_font("cjk", fname=cjk_font())
    if title is not None:
        pdf.set_title(title)
    pdf.set_auto_page_break(True, margin=20)
    pdf.add_page()
    pdf.set_font("cjk", size=20)
    pdf.cell(text="设备借用规定", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("cjk", size=11)
    pdf.multi_cell(0, 7, text=KANGXI_SENTENCE + ENGLISH, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.multi_cell(0, 7, text="本规定适用于所有测试设备。" * 8, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.set_font("cjk", size=15)
    pdf.cell(text="逾期处理", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font("cjk", size=11)
    pdf.set_y(pdf.h - 20 - 7 * 2)  # two lines left on page 1: the sentence continues on page 2
    pdf.multi_cell(0, 7, text=CROSSING, new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 7, text="归还地点为三楼设备间。", new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    pdf.multi_cell(0, 7, text="各型号的借用天数如下表。", new_x="LMARGIN", new_y="NEXT")
    with pdf.table(first_row_as_headings=False) as table:
        for row in TABLE:
            r = table.row()
            for cell in row:
                r.cell(cell)
    return bytes(pdf.output())


def plain_pdf(text: str, *, title: str | None = None, pages: int = 1) -> bytes:
    """``pages`` pages of ``text`` (CJK font, 11 pt), no headings."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_font("cjk", fname=cjk_font())
    if title is not None:
        pdf.set_title(title)
    for _ in range(pages):
        pdf.add_page()
        pdf.set_font("cjk", size=11)
        pdf.multi_cell(0, 7, text=text, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())
