"""Creating a Gemini File Search store from the knowledge base, offline: the real
``genai.Client`` (google-genai 3.3.0) against the stub server of
tests/gemini_server.py.

Wire protocol per file (read from google/genai/file_search_stores.py and
_api_client.upload_file): ``POST /upload/v1/{store}:uploadToFileSearchStore``
(``X-Goog-Upload-Command: start``) answered with an ``x-goog-upload-url`` header;
then one ``POST`` of the bytes to that URL (``upload, finalize``) answered with
``x-goog-upload-status: final`` and an operation; then ``GET /v1/{operation}``
while the operation is not done.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import store_main
from core.config import Settings
from core.errors import AuthenticationError, GeneratorNetworkError, IngestError, MissingKeyError
from core.generators.gemini import default_retry_options
from core.generators.gemini_store import FileSearchStoreResult, create_file_search_store
from tests.gemini_server import Reply, StubGemini

STORE = "fileSearchStores/yinzheng-kb-abc123"
MD_TEXT = "# 退款政策\n\n七天内可无理由退款。\n"
HTML_TEXT = "<html><head><title>运维</title></head><body><p>重启 Pod。</p></body></html>\n"
TXT_TEXT = "plain notes\n"
NO_RETRY = default_retry_options(attempts=1)


@pytest.fixture()
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "退款.md").write_text(MD_TEXT, encoding="utf-8")
    (root / "ops.html").write_text(HTML_TEXT, encoding="utf-8")
    (root / "notes.txt").write_text(TXT_TEXT, encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG")  # not a source file: not uploaded
    return root


def op(n: int, done: bool, doc: str | None = None, error: dict | None = None) -> dict:
    body: dict = {"name": f"{STORE}/upload/operations/op-{n}", "done": done}
    if doc:
        body["response"] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.UploadToFileSearchStoreResponse",
            "parent": STORE,
            "documentName": f"{STORE}/documents/{doc}",
        }
    if error:
        body["error"] = error
    return body


def created() -> Reply:
    return Reply(json={"name": STORE, "displayName": "知识库", "createTime": "2026-01-01T00:00:00Z"})


def start(stub: StubGemini, n: int) -> Reply:
    return Reply(headers={"x-goog-upload-url": f"{stub.base_url}/upload-session/{n}", "x-goog-upload-status": "active"})


def final(body: dict) -> Reply:
    return Reply(json=body, headers={"x-goog-upload-status": "final"})


def run(stub: StubGemini, paths, **kw) -> FileSearchStoreResult:
    kw.setdefault("display_name", "知识库")
    kw.setdefault("poll_interval_s", 0.01)
    kw.setdefault("retry_options", NO_RETRY)
    kw.setdefault("request_timeout_s", 5)
    return create_file_search_store(Settings(gemini_api_key="test-key"), paths, base_url=stub.base_url, **kw)


def test_create_store_uploads_every_source_file(kb):
    progress: list[tuple[int, int, str]] = []
    with StubGemini([Reply()]) as stub:
        # iter_source_files order: docs/退款.md, notes.txt, ops.html
        stub.replies = [
            created(),
            start(stub, 1),
            final(op(1, False)),
            Reply(json=op(1, False)),
            Reply(json=op(1, True, "d-md")),
            start(stub, 2),
            final(op(2, True, "d-txt")),
            start(stub, 3),
            final(op(3, False)),
            Reply(json=op(3, True, "d-html")),
        ]
        result = run(stub, [kb], progress=lambda *a: progress.append(a))

    assert result == FileSearchStoreResult(
        store_name=STORE,
        display_name="知识库",
        uploaded=(
            ("docs/退款.md", f"{STORE}/documents/d-md"),
            ("notes.txt", f"{STORE}/documents/d-txt"),
            ("ops.html", f"{STORE}/documents/d-html"),
        ),
        failed=(),
    )
    assert progress == [(1, 3, "docs/退款.md"), (2, 3, "notes.txt"), (3, 3, "ops.html")]

    reqs = stub.requests
    assert [(r.method, r.path) for r in reqs] == [
        ("POST", "/v1/fileSearchStores"),
        ("POST", f"/upload/v1/{STORE}:uploadToFileSearchStore"),
        ("POST", "/upload-session/1"),
        ("GET", f"/v1/{STORE}/upload/operations/op-1"),
        ("GET", f"/v1/{STORE}/upload/operations/op-1"),
        ("POST", f"/upload/v1/{STORE}:uploadToFileSearchStore"),
        ("POST", "/upload-session/2"),
        ("POST", f"/upload/v1/{STORE}:uploadToFileSearchStore"),
        ("POST", "/upload-session/3"),
        ("GET", f"/v1/{STORE}/upload/operations/op-3"),
    ]
    assert reqs[0].body == {"displayName": "知识库"}
    assert reqs[0].headers["x-goog-api-key"] == "test-key"

    expected = [
        ("docs/退款.md", "text/plain", MD_TEXT),
        ("notes.txt", "text/plain", TXT_TEXT),
        ("ops.html", "text/html", HTML_TEXT),
    ]
    starts = [r for r in reqs if r.path.startswith("/upload/")]
    sends = [r for r in reqs if r.path.startswith("/upload-session/")]
    for (source_id, mime, text), s, u in zip(expected, starts, sends, strict=True):
        assert s.body == {"displayName": source_id, "mimeType": mime}
        assert s.headers["x-goog-upload-protocol"] == "resumable"
        assert s.headers["x-goog-upload-command"] == "start"
        assert s.headers["x-goog-upload-header-content-type"] == mime
        assert s.headers["x-goog-upload-header-content-length"] == str(len(text.encode("utf-8")))
        assert "x-goog-upload-file-name" not in s.headers  # a file object is sent, not a path
        # the whole file in one request that also finalizes the upload
        assert u.headers["x-goog-upload-command"] == "upload, finalize"
        assert u.headers["x-goog-upload-offset"] == "0"
        assert u.headers["content-length"] == str(len(text.encode("utf-8")))
        assert u.body == text  # the stub decodes non-JSON bodies as UTF-8


def test_file_level_errors_are_recorded_and_the_rest_uploaded(kb):
    with StubGemini([Reply()]) as stub:
        stub.replies = [
            created(),
            Reply(
                status=400,
                json={"error": {"code": 400, "message": "Unsupported file content.", "status": "INVALID_ARGUMENT"}},
            ),
            start(stub, 2),
            final(op(2, True, error={"code": 13, "message": "could not parse document"})),
            start(stub, 3),
            final(op(3, True, "d-html")),
        ]
        result = run(stub, [kb, kb / "missing.md"])
    assert result.uploaded == (("ops.html", f"{STORE}/documents/d-html"),)
    failed = dict(result.failed)
    assert list(failed) == ["docs/退款.md", "notes.txt", "missing.md"]
    assert "HTTP 400" in failed["docs/退款.md"] and "Unsupported file content" in failed["docs/退款.md"]
    assert "could not parse document" in failed["notes.txt"]
    assert failed["missing.md"] == "not found"
    assert len(stub.requests) == 6


def test_operation_not_done_in_time_is_recorded(kb):
    with StubGemini([Reply()]) as stub:
        stub.replies = [created(), start(stub, 1), final(op(1, False)), Reply(json=op(1, False))]
        result = run(stub, [kb / "ops.html"], timeout_s=0.2, poll_interval_s=0.02)
    assert result.uploaded == ()
    ((source_id, reason),) = result.failed
    assert source_id == "ops.html" and "not finished" in reason and "op-1" in reason


def test_401_on_create_is_authentication_error(kb):
    body = {"error": {"code": 401, "message": "API key not valid.", "status": "UNAUTHENTICATED"}}
    with StubGemini([Reply(status=401, json=body)]) as stub:
        with pytest.raises(AuthenticationError, match="creating the File Search store"):
            run(stub, [kb])
    assert len(stub.requests) == 1


def test_401_during_upload_stops_the_run_and_names_the_store(kb):
    body = {"error": {"code": 403, "message": "Permission denied.", "status": "PERMISSION_DENIED"}}
    with StubGemini([Reply()]) as stub:
        stub.replies = [created(), start(stub, 1), final(op(1, True, "d-md")), Reply(status=403, json=body)]
        with pytest.raises(AuthenticationError) as info:
            run(stub, [kb])
    assert STORE in str(info.value) and "1 of 3" in str(info.value)
    assert len(stub.requests) == 4  # notes.txt failed with 403; ops.html never tried


def test_connection_dropped_is_network_error(kb):
    with StubGemini([Reply()]) as stub:
        stub.replies = [created(), Reply(close=True)]
        with pytest.raises(GeneratorNetworkError):
            run(stub, [kb])


def test_missing_key_and_no_files(kb, tmp_path):
    with pytest.raises(MissingKeyError):
        create_file_search_store(Settings(gemini_api_key=None), [kb], display_name="x")
    empty = tmp_path / "empty"
    empty.mkdir()
    with StubGemini([created()]) as stub:
        with pytest.raises(IngestError, match="no source files"):
            run(stub, [empty])
    assert stub.requests == []  # no store is created for nothing


def test_store_main_json_and_text(kb, monkeypatch, capsys):
    import core.config

    with StubGemini([Reply()]) as stub:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", stub.base_url)
        monkeypatch.setattr(
            core.config, "load_settings", lambda *a, **k: Settings(gemini_api_key="test-key", corpus_dir=kb)
        )
        stub.replies = [created(), start(stub, 1), final(op(1, True, "d-html"))]
        assert store_main(["create", "--name", "知识库", str(kb / "ops.html"), "--json"]) == 0
        out = capsys.readouterr()
        assert json.loads(out.out) == {
            "store_name": STORE,
            "display_name": "知识库",
            "uploaded": [{"source_id": "ops.html", "document_name": f"{STORE}/documents/d-html"}],
            "failed": [],
        }
        assert "[1/1] ops.html" in out.err

        # default path: settings.corpus_dir (3 files)
        stub.requests.clear()
        stub.replies = [created()] + [r for n in (1, 2, 3) for r in (start(stub, n), final(op(n, True, f"d{n}")))]
        assert store_main(["create", "--name", "知识库"]) == 0
        out = capsys.readouterr()
        lines = out.out.splitlines()
        assert lines[0] == STORE
        assert f"YINZHENG_GEMINI_FILE_SEARCH_STORE={STORE}" in out.out
        assert f'python -m core ask "问题" --generator gemini-file-search --store {STORE}' in out.out
        assert "[3/3] ops.html" in out.err


def test_store_main_app_error_exits_1(kb, monkeypatch, capsys):
    import core.config

    monkeypatch.setattr(core.config, "load_settings", lambda *a, **k: Settings(gemini_api_key=None, corpus_dir=kb))
    assert store_main(["create", "--name", "x"]) == 1
    out = capsys.readouterr()
    assert out.out == "" and "GEMINI_API_KEY" in out.err


class _Stores:
    """``client.file_search_stores`` whose upload raises ``exc``."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def create(self, config):
        return type("Store", (), {"name": STORE})()

    def upload_to_file_search_store(self, **kw):
        raise self.exc


def test_unreadable_file_is_recorded_and_logged_but_a_bug_stops_the_run(kb, caplog):
    client = type("Client", (), {})()
    client.file_search_stores = _Stores(PermissionError(13, "Permission denied"))
    with caplog.at_level("WARNING", logger="core.generators.gemini_store"):
        result = create_file_search_store(Settings(), [kb / "ops.html"], display_name="x", client=client)
    assert result.failed == (("ops.html", "PermissionError: [Errno 13] Permission denied"),)
    assert [r.exc_info is not None for r in caplog.records if r.name == "core.generators.gemini_store"] == [True]

    client.file_search_stores = _Stores(AttributeError("a bug, not a file problem"))
    with pytest.raises(AttributeError, match="a bug"):
        create_file_search_store(Settings(), [kb / "ops.html"], display_name="x", client=client)


def test_store_create_needs_a_name(capsys):
    with pytest.raises(SystemExit) as info:
        store_main(["create"])
    assert info.value.code == 2 and "--name" in capsys.readouterr().err
