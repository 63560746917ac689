"""A benchmark's own question panel (``adapters.panels``): what the app draws of its blocks,
and what the store lends its ``build`` hook (issue 39, item 2)."""

from __future__ import annotations

from memscope.adapters.panels import ImageBlock, QuestionPanel, TextLine
from memscope.adapters.sections import TextBlock
from memscope.tui.widgets.question_panel import blocks_text, first_image


def test_blocks_are_drawn_a_line_each_sanitised_with_the_first_image() -> None:
    blocks = [
        TextLine((TextBlock("probe p1", "bold"), TextBlock("  ·  task t", "dim"))),
        TextLine(()),
        ImageBlock("a.png", "a caption", "h1"),
        TextBlock("two\nlines \x1b[31m", "red"),  # a run file's text: one line, no escape
        ImageBlock("b.png"),
    ]
    text = blocks_text(blocks)
    assert text.plain == "probe p1  ·  task t\n\ntwo lines \\x1b[31m"
    assert [(span.start, span.end, str(span.style)) for span in text.spans] == [
        (0, 8, "bold"),
        (8, 19, "dim"),
        (21, 39, "red"),
    ]
    image = first_image(blocks)
    assert image is not None and (image.file, image.caption, image.media_id) == (
        "a.png",
        "a caption",
        "h1",
    )
    assert first_image([TextBlock("no image")]) is None


def test_a_panel_calls_its_hooks_and_has_no_summary_without_one() -> None:
    class Question:
        qid = "q7"

    panel = QuestionPanel("demo", "the demo", lambda question: [TextBlock(question.qid)])
    assert panel.built(Question()) == [TextBlock("q7")]  # type: ignore[arg-type]
    assert panel.summarised(Question()) == ()  # type: ignore[arg-type]
