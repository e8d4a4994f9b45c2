"""Gemini File Search store administration: create a store and upload the
knowledge base's source files into it (``create_file_search_store``), with the
upload operations polled until each import is done.

The SDK client, retry policy and error mapping come from the adapter
``core.generators.gemini`` (the only module importing ``google.genai``); this
module only calls the client's ``file_search_stores`` / ``operations`` methods.
The command line (``python -m core store create``) lives in ``core.cli.store``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from core.config import Settings
from core.errors import ConfigError, GenerationError, IngestError
from core.generators.gemini import PROVIDER_ERRORS, RetryOptions, api_error_details, map_error, new_client
from core.ingest.converters import mime_types

__all__ = ["STORE_MIME_TYPES", "FileSearchStoreResult", "create_file_search_store"]

logger = logging.getLogger(__name__)

#: Suffix → media type of each source file, from the one file-format registry
#: (``core.ingest.converters.FORMATS``; Markdown goes up as text/plain, see there).
STORE_MIME_TYPES: dict[str, str] = mime_types()


@dataclass(frozen=True)
class FileSearchStoreResult:
    """What ``create_file_search_store`` did.

    ``uploaded`` is ``(source_id, document name or None)`` per imported file (the
    document name is ``fileSearchStores/.../documents/...`` when the finished
    operation reports it); ``failed`` is ``(source_id, reason)``.
    """

    store_name: str
    display_name: str
    uploaded: tuple[tuple[str, str | None], ...] = ()
    failed: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "store_name": self.store_name,
            "display_name": self.display_name,
            "uploaded": [{"source_id": s, "document_name": d} for s, d in self.uploaded],
            "failed": [{"source_id": s, "reason": r} for s, r in self.failed],
        }


def _file_level_api_error(exc: BaseException) -> bool:
    """True for an SDK API error that concerns one file only (a 4xx other than
    auth / quota / timeout): it is recorded and the run goes on."""
    details = api_error_details(exc)
    if details is None:
        return False
    code = details[0]
    return type(map_error(exc, None)) is GenerationError and code is not None and 400 <= code < 500


def _store_error(exc: BaseException, context: str) -> GenerationError | None:
    """``map_error`` for the File Search store calls (no model involved), with
    ``context`` (what was being done) appended."""
    details = api_error_details(exc)
    if details is not None and details[0] == 404:
        mapped: GenerationError | None = GenerationError(f"Gemini answered HTTP 404 ({details[1]}).")
    else:
        mapped = map_error(exc, None)
    if mapped is None:
        return None
    return type(mapped)(f"{mapped} [{context}]")


def _operation_error(op: Any) -> str | None:
    err = getattr(op, "error", None)
    if not err:
        return None
    if isinstance(err, dict):
        msg = err.get("message") or err.get("status") or err
        code = err.get("code")
        return f"import failed ({code}): {msg}" if code is not None else f"import failed: {msg}"
    return f"import failed: {err}"


def _wait(client: Any, op: Any, poll_interval_s: float, timeout_s: float) -> Any:
    """Poll the upload operation ``op`` (``client.operations.get``) every
    ``poll_interval_s`` seconds until it is done or ``timeout_s`` seconds passed;
    the last operation seen."""
    deadline = time.monotonic() + timeout_s
    while not getattr(op, "done", False):
        if time.monotonic() >= deadline:
            break
        time.sleep(poll_interval_s)
        op = client.operations.get(op)
    return op


def create_file_search_store(
    settings: Settings,
    paths: Sequence[Path],
    *,
    display_name: str,
    client: Any = None,
    base_url: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    poll_interval_s: float = 2.0,
    timeout_s: float = 600,
    request_timeout_s: float | None = 300.0,
    retry_options: RetryOptions | None = None,
) -> FileSearchStoreResult:
    """Create a Gemini File Search store and upload every source file under ``paths``.

    Steps, with the google-genai 3.x methods and the Gemini API REST calls they make
    (``{v}`` is the SDK's API version: ``v1`` in google-genai 3.3.0, ``v1beta`` before):

    1. ``client.file_search_stores.create(config={"display_name": ...})``
       → ``POST /{v}/fileSearchStores`` (``{"displayName": ...}``); returns
       ``types.FileSearchStore`` whose ``name`` is ``fileSearchStores/<id>``.
    2. per file (``core.ingest.corpus.iter_source_files(paths)``; ``.md .markdown .txt``
       as ``text/plain``, ``.html .htm`` as ``text/html``, ``.pdf`` as
       ``application/pdf``),
       ``client.file_search_stores.upload_to_file_search_store(file_search_store_name=...,
       file=<open binary file>, config={"display_name": source_id, "mime_type": ...})``
       (a file object, not the path: the SDK would put a non-ASCII file name into an
       HTTP header and fail): a resumable upload —
       ``POST /upload/{v}/{store}:uploadToFileSearchStore`` (body
       ``{"displayName", "mimeType"}``) with
       ``X-Goog-Upload-Protocol: resumable`` / ``X-Goog-Upload-Command: start``,
       then the bytes to the returned ``x-goog-upload-url`` with
       ``X-Goog-Upload-Command: upload, finalize``; the finalize reply is a
       long-running operation (``types.UploadToFileSearchStoreOperation``).
    3. ``client.operations.get(op)`` → ``GET /{v}/{operation name}`` every
       ``poll_interval_s`` until ``done`` (at most ``timeout_s`` seconds per file);
       ``op.response.document_name`` names the imported document.

    A file that fails on its own (missing / unreadable / unsupported file, an HTTP
    4xx such as 400 or 413 for that upload, an operation that ends with ``error``
    or is not done within ``timeout_s``) is recorded in ``failed`` and the run goes
    on. Auth (401/403, bad key), quota (429), timeouts, network and 5xx errors are
    mapped by ``map_error`` to our ``GenerationError`` subclasses and stop the run;
    the message names the store if it was already created. No source file at all
    → ``IngestError`` (no store is created). No API key (``settings.gemini_api_key``)
    and no ``client`` → ``MissingKeyError``. What is caught is logged with its traceback.

    ``progress(done, total, source_id)`` is called after each file.
    ``client`` (a ready ``genai.Client``), ``base_url``, ``request_timeout_s``
    (per HTTP request, seconds) and ``retry_options`` exist for tests.
    """
    from core.ingest.corpus import iter_source_files  # local: keeps this module light to import

    if not display_name or not display_name.strip():
        raise ConfigError("the File Search store needs a display name (--name)")
    if poll_interval_s < 0 or timeout_s <= 0:
        raise ValueError("poll_interval_s must be >= 0 and timeout_s > 0")
    if client is None:
        client = new_client(
            settings.gemini_api_key, base_url=base_url, timeout_s=request_timeout_s, retry_options=retry_options
        )

    files = iter_source_files([Path(p) for p in paths])
    if not files:
        shown = ", ".join(str(p) for p in paths) or "(no path given)"
        raise IngestError(f"no source files ({', '.join(sorted(STORE_MIME_TYPES))}) under {shown}")

    try:
        store = client.file_search_stores.create(config={"display_name": display_name.strip()})
    except PROVIDER_ERRORS as exc:
        mapped = _store_error(exc, "while creating the File Search store")
        if mapped is None:  # pragma: no cover - map_error covers PROVIDER_ERRORS
            raise
        logger.warning("creating the File Search store failed", exc_info=True)
        raise mapped from exc
    store_name = getattr(store, "name", None)
    if not store_name:
        raise GenerationError("Gemini created a File Search store but returned no store name.")

    uploaded: list[tuple[str, str | None]] = []
    failed: list[tuple[str, str]] = []
    total = len(files)

    for n, (path, source_id) in enumerate(files, start=1):
        mime = STORE_MIME_TYPES.get(path.suffix.lower())
        try:
            if mime is None:
                failed.append((source_id, f"unsupported file type {path.suffix or '(none)'}"))
            elif not path.is_file():
                failed.append((source_id, "not found" if not path.exists() else "not a regular file"))
            else:
                # An open binary file, not the path: for a path the SDK sends the
                # base name in the X-Goog-Upload-File-Name header, which httpx
                # cannot encode for non-ASCII names (退款.md → UnicodeEncodeError).
                with path.open("rb") as fh:
                    op = client.file_search_stores.upload_to_file_search_store(
                        file_search_store_name=store_name,
                        file=fh,
                        config={"display_name": source_id, "mime_type": mime},
                    )
                op = _wait(client, op, poll_interval_s, timeout_s)
                reason = _operation_error(op)
                if reason:
                    failed.append((source_id, reason))
                elif not getattr(op, "done", False):
                    failed.append(
                        (
                            source_id,
                            f"import not finished after {timeout_s:g} s "
                            f"(operation {getattr(op, 'name', '?')}); it may still complete",
                        )
                    )
                else:
                    response = getattr(op, "response", None)
                    uploaded.append((source_id, getattr(response, "document_name", None)))
        except PROVIDER_ERRORS as exc:  # checked before OSError: ConnectionError is one
            logger.warning("File Search upload of %s failed", source_id, exc_info=True)
            details = api_error_details(exc)
            if details is not None and _file_level_api_error(exc):
                failed.append((source_id, f"HTTP {details[0]}: {details[1]}"))
            else:
                mapped = _store_error(
                    exc,
                    f"at {source_id}; store {store_name} was created, {len(uploaded)} of {total} files "
                    f"uploaded before the error",
                )
                if mapped is None:  # pragma: no cover - map_error covers PROVIDER_ERRORS
                    raise
                raise mapped from exc
        except (OSError, ValueError, KeyError) as exc:  # unreadable file, upload not finalized
            logger.warning("File Search upload of %s failed", source_id, exc_info=True)
            failed.append((source_id, f"{type(exc).__name__}: {exc}"))
        if progress is not None:
            progress(n, total, source_id)

    return FileSearchStoreResult(
        store_name=store_name, display_name=display_name.strip(), uploaded=tuple(uploaded), failed=tuple(failed)
    )
