"""Images for the app's round view: decoded within a pixel bound, shrunk for a terminal.

A small file can hold a huge image: one colour compresses a 100-megapixel PNG into a few
hundred KiB (a "decompression bomb"), and decoding it whole takes gigabytes before any
shrinking. The header gives the size before anything is decoded, so :func:`load_preview`

- decodes a JPEG at 1/2, 1/4 or 1/8 scale straight from the file (Pillow's draft mode),
  the smallest scale that still covers the preview;
- refuses, with a :class:`~memscope.errors.MediaError` giving the size, an image that
  would still decode to more than :data:`MAX_DECODED_PIXELS`, so memory stays bounded
  whatever the file claims (Pillow's own bomb check, at 89 / 179 megapixels, is far above);
- shrinks the decoded image in place (Pillow's ``thumbnail``: reduce, then resample)
  before it is turned per its EXIF orientation and converted to RGB, so no second
  full-size copy is made.

Only a regular file is opened (a FIFO would block the decoder): anything else is a
``MediaError`` saying what the path is.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.errors import MediaError
from memscope.file_kinds import NotRegularFileError, open_regular

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

MAX_DECODED_PIXELS = 24_000_000
"""The most pixels decoded for one preview (about 96 MB at Pillow's 4 bytes a pixel)."""
PALETTE_MODES = ("1", "P", "PA")
"""Modes Pillow would shrink with nearest-neighbour only: converted first (still bounded)."""


def _megapixels(pixels: int) -> str:
    return f"{pixels / 1e6:.0f}" if pixels >= 10e6 else f"{pixels / 1e6:.1f}"


def too_large(width: int, height: int) -> str:
    """Why an image of this decoded size is not shown."""
    return (
        f"the image is {width:,} × {height:,} pixels ({_megapixels(width * height)} megapixels); "
        f"memscope decodes at most {_megapixels(MAX_DECODED_PIXELS)} megapixels for a preview "
        "(a decompression bomb, or a huge scan: open it in an image viewer)"
    )


def load_preview(path: str | Path, max_side: int) -> PILImage:
    """The image at ``path`` decoded within :data:`MAX_DECODED_PIXELS`, at most ``max_side`` a side.

    Returns:
        A PIL image in RGB mode.

    Raises:
        MediaError: the file is missing, not a regular file, not an image, damaged, or
            larger than the pixel bound (the message gives its size).
    """
    from PIL import Image, ImageOps, UnidentifiedImageError

    where = str(path)
    try:
        handle = open(open_regular(path), "rb")  # noqa: SIM115 - closed by the with below
    except FileNotFoundError:
        raise MediaError("the image file does not exist", where=where) from None
    except NotRegularFileError as exc:
        raise MediaError(f"the image path is {exc.kind}, not a file", where=where) from None
    except OSError as exc:
        raise MediaError(f"cannot read the image: {exc.strerror or exc}", where=where) from None
    with handle:
        try:
            # The bound below is lower than Pillow's, whose warning would say it again.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                opened = Image.open(handle)
        except Image.DecompressionBombError as exc:
            raise MediaError(f"the image is too large to decode: {exc}", where=where) from None
        except (UnidentifiedImageError, OSError, ValueError) as exc:
            raise MediaError(f"not an image memscope can read: {exc}", where=where) from None
        with opened:
            full = opened.size
            opened.draft("RGB", (max_side, max_side))  # JPEG: decode at a reduced scale
            width, height = opened.size
            if width * height > MAX_DECODED_PIXELS:
                raise MediaError(too_large(*full), where=where)
            try:
                opened.load()
                image = opened.convert("RGBA") if opened.mode in PALETTE_MODES else opened
                image.thumbnail((max_side, max_side))
                image = ImageOps.exif_transpose(image)
                return image.convert("RGB")
            except (OSError, ValueError, SyntaxError) as exc:  # a damaged or truncated file
                raise MediaError(f"cannot decode the image: {exc}", where=where) from None
