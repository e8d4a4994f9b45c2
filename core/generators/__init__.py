"""Generators: evidence in, a ``Draft`` out (answer parts with the chunk ids or offsets they rest on).

``base.Generator`` is the protocol, ``registry`` names every generator; ``extractive`` answers offline
from the retrieved sentences; ``structured``/``evidence`` are the JSON contract the LLM generators share;
Gemini (``gemini*``; only ``gemini.py`` imports ``google.genai``) and OpenAI-compatible servers
(``openai_chat``, the only ``openai`` import).

May import: the ground floor, ``core.retrieval`` (the extractive generator reads the question the way
retrieval does) and ``core.ingest`` (a File Search store is filled from the corpus).
"""
