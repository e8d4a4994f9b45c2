"""The store of knowledge bases: the ``knowledge_bases`` table of the catalog
(``core.store.catalog``), one row per knowledge base.

* ``name`` is the permanent id (``core.models.KB_NAME_PATTERN``); it is part of
  every document and chunk id (``kb/source@version#n``), so it never changes:
  renaming sets the ``title``.
* ``hidden`` knowledge bases keep their documents (old answers replay) but are
  not offered for questions: ``resolve`` refuses them.
* ``settings`` is a JSON object for per-knowledge-base options used later
  (redaction rules, who may ask); it never reaches the page or a prompt.
* :data:`core.models.DEFAULT_KB` always exists (created with the catalog; it holds
  the bundled Kubernetes sample and every document of a data folder made before
  knowledge bases existed).

Errors: ``KnowledgeBaseError`` (a ``ValueError`` and an ``AppError``, message in
Chinese) for a bad or unknown name, an empty title or a duplicate; ``IndexError_``
when the database fails (``core.store.sql``).
"""

from __future__ import annotations

import json
import re
from typing import Iterable, Mapping

import sqlalchemy as sa

from core.errors import AppError
from core.models import DEFAULT_KB, KB_NAME_PATTERN, KnowledgeBase, check_kb_name, utc_now
from core.store.sql import SqlDatabase, upsert

#: The table as the statements see it; its layout is made by ``core/store/migrations/catalog``.
KNOWLEDGE_BASES = sa.Table(
    "knowledge_bases",
    sa.MetaData(),
    sa.Column("name", sa.Text),
    sa.Column("title", sa.Text),
    sa.Column("hidden", sa.Integer),
    sa.Column("settings_json", sa.Text),
    sa.Column("created_at", sa.Text),
)
_KB = KNOWLEDGE_BASES

#: The title of :data:`DEFAULT_KB` when the catalog creates it (an ingest whose folder brings a
#: corpus profile with a title renames it: ``core.ingest.run.adopt_profile``).
DEFAULT_TITLE = "默认知识库"


class KnowledgeBaseError(AppError, ValueError):
    """A knowledge-base request that cannot be done (the message says why, in Chinese)."""


def _row(row) -> KnowledgeBase:  # noqa: ANN001 - a RowMapping of KNOWLEDGE_BASES
    return KnowledgeBase(
        name=row["name"],
        title=row["title"],
        hidden=bool(row["hidden"]),
        settings=json.loads(row["settings_json"]),
        created_at=row["created_at"],
    )


class KnowledgeBaseStore:
    """Create, rename, hide and list the knowledge bases of one catalog database."""

    def __init__(self, db: SqlDatabase) -> None:
        self._db = db
        with db.write() as conn:
            upsert(
                conn,
                _KB,
                {
                    "name": DEFAULT_KB,
                    "title": DEFAULT_TITLE,
                    "hidden": 0,
                    "settings_json": "{}",
                    "created_at": utc_now().isoformat(),
                },
                ["name"],
            )

    def list(self, *, include_hidden: bool = True) -> list[KnowledgeBase]:
        """Every knowledge base, :data:`DEFAULT_KB` first, then by name."""
        with self._db.read() as conn:
            rows = (
                conn.execute(sa.select(_KB).order_by(sa.case((_KB.c.name == DEFAULT_KB, 0), else_=1), _KB.c.name))
                .mappings()
                .all()
            )
        return [kb for kb in map(_row, rows) if include_hidden or not kb.hidden]

    def get(self, name: str) -> KnowledgeBase | None:
        """The knowledge base ``name``, or None."""
        with self._db.read() as conn:
            row = conn.execute(sa.select(_KB).where(_KB.c.name == name)).mappings().first()
        return _row(row) if row else None

    def require(self, name: str) -> KnowledgeBase:
        """The knowledge base ``name``; ``KnowledgeBaseError`` naming the known ones when there is none."""
        kb = self.get(name)
        if kb is None:
            known = "、".join(k.name for k in self.list())
            raise KnowledgeBaseError(f"没有名为 {name!r} 的知识库（现有：{known}）")
        return kb

    def create(
        self, name: str, title: str | None = None, settings: Mapping[str, object] | None = None
    ) -> KnowledgeBase:
        """Add a knowledge base (title defaults to the name). ``KnowledgeBaseError`` for a
        bad name, an empty title, or a name that exists (also a hidden one)."""
        try:
            kb = KnowledgeBase(
                name=name,
                title=(title if title is not None else name).strip(),
                settings=dict(settings or {}),
                created_at=utc_now(),
            )
        except ValueError as exc:
            raise KnowledgeBaseError(_first_message(exc)) from exc
        with self._db.write() as conn:
            if conn.execute(sa.select(1).where(_KB.c.name == name)).first():
                raise KnowledgeBaseError(f"知识库 {name!r} 已存在")
            conn.execute(
                sa.insert(_KB).values(
                    name=kb.name,
                    title=kb.title,
                    hidden=0,
                    settings_json=json.dumps(kb.settings, ensure_ascii=False),
                    created_at=kb.created_at.isoformat(),
                )
            )
        return kb

    def rename(self, name: str, title: str) -> KnowledgeBase:
        """Set the title of ``name`` (the name itself is permanent)."""
        if not title.strip():
            raise KnowledgeBaseError("知识库标题不能为空")
        return self._update(name, "title", title.strip())

    def set_hidden(self, name: str, hidden: bool) -> KnowledgeBase:
        """Hide (or show again) ``name``. :data:`DEFAULT_KB` cannot be hidden: it is the
        selection when nothing else is chosen."""
        if hidden and name == DEFAULT_KB:
            raise KnowledgeBaseError("默认知识库不能隐藏")
        return self._update(name, "hidden", int(hidden))

    def update_settings(self, name: str, settings: Mapping[str, object]) -> KnowledgeBase:
        """Replace the settings of ``name`` (a JSON-serializable mapping)."""
        return self._update(name, "settings_json", json.dumps(dict(settings), ensure_ascii=False))

    def _update(self, name: str, column: str, value: object) -> KnowledgeBase:
        with self._db.write() as conn:
            n = conn.execute(sa.update(_KB).where(_KB.c.name == name).values({column: value})).rowcount
        if not n:
            self.require(name)  # raises, naming the known ones
        return self.require(name)

    def resolve(self, names: Iterable[str] | None) -> tuple[str, ...]:
        """The knowledge bases a question searches: ``names`` de-duplicated in order,
        each existing and not hidden; ``(DEFAULT_KB,)`` when ``names`` is None or empty.
        ``KnowledgeBaseError`` names the first bad one."""
        wanted = tuple(dict.fromkeys(names or ())) or (DEFAULT_KB,)
        for name in wanted:
            try:
                check_kb_name(name)
            except ValueError as exc:
                raise KnowledgeBaseError(str(exc)) from exc
            if self.require(name).hidden:
                raise KnowledgeBaseError(f"知识库 {name!r} 已隐藏，不能提问")
        return wanted


def name_from_title(title: str) -> str | None:
    """A valid knowledge-base name (:data:`core.models.KB_NAME_PATTERN`) made of the ASCII
    letters and digits of ``title``: lowercased, every other run of characters one ``-``, cut
    to 40 characters (``'Canteen Menu'`` -> ``'canteen-menu'``); None when ``title`` has no
    ASCII letter or digit (e.g. an all-Chinese title)."""
    slug = re.sub(r"[^a-z0-9_]+", "-", title.lower()).strip("-_")
    slug = slug[:40].rstrip("-_")
    return slug if slug and re.fullmatch(KB_NAME_PATTERN, slug) else None


def _first_message(exc: ValueError) -> str:
    """The message of a pydantic validation error without its boilerplate."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        msg = str(errors()[0].get("msg", exc))
        return msg.removeprefix("Value error, ")
    return str(exc)
