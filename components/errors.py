"""The page boundary: every ``AppError`` that reaches a page is shown one way.

``with page_guard("加载问答页"):`` around a page's body turns an
:class:`core.errors.AppError` into one ``st.error`` in Chinese that names what
failed, why (the error's own text, which may be English detail from an
adapter) and what to do; no traceback is shown, and the error is logged with its
traceback (``logging.getLogger(__name__)``). Anything that is not an
``AppError`` (a programming error, Streamlit's stop/rerun) passes through
unchanged. ``app.py`` and every script in ``app_pages/`` use it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from components.plain import plain
from core.public import (
    AppError,
    ConfigError,
    EmbeddingError,
    GenerationError,
    IndexError_,
    IngestError,
    RecordError,
    RetrievalError,
)

log = logging.getLogger(__name__)

#: What to do, by the kind of error (the first class in the error's MRO that is listed wins).
HINTS: dict[type[AppError], str] = {
    RecordError: "回答记录库无法读写：请检查数据目录（YINZHENG_DATA_DIR）是否存在、可写、磁盘未满，然后刷新页面",
    ConfigError: "设置有误：请按提示修改环境变量或 .streamlit/secrets.toml 后重启应用",
    IndexError_: "知识库索引无法打开或写入：请检查数据目录，必要时在知识库页重新导入文档",
    EmbeddingError: "向量模型无法加载或计算：请检查 YINZHENG_EMBEDDING 设置与本地模型文件",
    RetrievalError: "检索无法完成：请稍后重试，或换个问法",
    IngestError: "文档无法读取或解析：请检查文件格式与编码后重新导入",
    GenerationError: "生成服务出错：请稍后重试，或在侧边栏改用离线抽取式",
}
DEFAULT_HINT = "请刷新页面重试；若问题持续，请查看服务器日志"


def app_error_message(exc: AppError, action: str) -> str:
    """``{action}失败：{hint}。（详情：{exc}）`` — one line, no traceback; ``hint`` by the error's class."""
    hint = next((HINTS[k] for k in type(exc).__mro__ if k in HINTS), DEFAULT_HINT)
    detail = str(exc).strip() or type(exc).__name__
    return f"{action}失败：{hint}。（详情：{detail}）"


def show_app_error(exc: AppError, action: str) -> None:
    """Log ``exc`` with its traceback and show :func:`app_error_message` with ``st.error``."""
    log.error("%s failed", action, exc_info=exc)
    st.error(plain(app_error_message(exc, action)))  # the detail may quote a file name or a title


@contextmanager
def page_guard(action: str) -> Iterator[None]:
    """Run a page body; an ``AppError`` raised in it ends the body and is shown with
    :func:`show_app_error` (what was drawn before it stays on the page). Other exceptions propagate."""
    try:
        yield
    except AppError as exc:
        show_app_error(exc, action)
