"""What the Gemini generators tell the model in mode 2 (Gemini's own Google
Search / File Search tool). Mode 1 (our chunks) uses ``core.generators.evidence``.
Plain strings, no SDK.
"""

from __future__ import annotations

SEARCH_SYSTEM_INSTRUCTION = (
    "Answer the question from the sources the tool returns. Reply in the language of the "
    "question (usually Chinese). Where the sources do not settle something, say so plainly "
    "instead of guessing. Do not add citation markers; the application adds them."
)
