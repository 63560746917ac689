"""The memory engine: embeds a benchmark's memory, retrieves from it, answers with it.

This package is the only code that imports torch, open_clip, sentence-transformers and
faiss, and it imports them inside functions, so importing ``memscope.engine`` (or anything
that imports it) stays cheap. Modules:

- ``device``: resolving ``--device auto|cpu|cuda[:N]`` once.
- ``models``: where a model's weights are on this machine (never downloaded).
- ``text`` / ``image``: the sentence-transformers and open_clip encoders.
- ``corpus``: which text of a round is embedded, exactly as MemEye builds it.
- ``fusion``: the retrievers' score formulas (pure numpy).
- ``retrieve``: ranked candidate pools over a memory bank.
- ``index``: the FAISS inner-product index (a derived, rebuildable artifact).
- ``answer``: an OpenAI-compatible chat client with MemEye's answer prompts.
- ``runs``: writing native runs in the MemEye layout plus ``retrieval.jsonl``.
"""
