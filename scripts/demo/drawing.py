"""Drawing primitives for the demo garden scenes (see ``scenes.py``).

A shared palette (including the three exact shed-door colours the colour questions rely
on), Pillow's built-in default font, and small building blocks: fences, raised beds, the
shed, the compost bin, watering cans, seed jars, seedlings, a chalkboard, plot markers,
people, rain, cars, awnings and tomatoes. Everything is drawn from fixed coordinates;
the only "random" elements (rain streaks, mud) use ``random.Random`` with a fixed seed.
"""

from __future__ import annotations

import random
from functools import cache

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 320, 240

SKY = (176, 212, 238)
RAIN_SKY = (150, 156, 166)
GRASS = (112, 160, 84)
SOIL = (104, 74, 50)
WOOD = (150, 108, 66)
DARK_WOOD = (110, 78, 48)
CAN_GREEN = (58, 140, 74)
BLACK = (30, 30, 30)
WHITE = (245, 245, 240)

# The shed door is repainted twice; the exact shades matter for the colour questions.
DOOR_FOREST_GREEN = (34, 102, 51)
DOOR_SKY_BLUE = (112, 172, 228)
DOOR_TERRACOTTA = (198, 98, 62)


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def new_canvas(background) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (WIDTH, HEIGHT), background)
    return image, ImageDraw.Draw(image)


def centered_text(draw, center_x: int, y: int, text: str, size: int, fill) -> None:
    left, _, right, _ = draw.textbbox((0, 0), text, font=font(size))
    draw.text((center_x - (right - left) // 2, y), text, font=font(size), fill=fill)


# --------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------


def sky_and_grass(draw, horizon: int, sky=SKY) -> None:
    draw.rectangle([0, 0, WIDTH, horizon], fill=sky)
    draw.rectangle([0, horizon, WIDTH, HEIGHT], fill=GRASS)


def picket_fence(draw, y_top: int, y_bottom: int, x0: int = 0, x1: int = WIDTH) -> None:
    draw.rectangle([x0, y_top + 6, x1, y_top + 10], fill=WOOD)
    draw.rectangle([x0, y_bottom - 10, x1, y_bottom - 6], fill=WOOD)
    for x in range(x0 + 2, x1, 12):
        draw.rectangle([x, y_top, x + 6, y_bottom], fill=(196, 160, 112), outline=DARK_WOOD)


def raised_bed(draw, box, plants: int = 0, plant_color=(70, 150, 60)) -> None:
    x0, y0, x1, y1 = box
    draw.rectangle(box, fill=WOOD, outline=DARK_WOOD, width=2)
    draw.rectangle([x0 + 4, y0 + 4, x1 - 4, y1 - 4], fill=SOIL)
    if plants:
        step = (x1 - x0 - 8) / plants
        for i in range(plants):
            cx = int(x0 + 4 + step * (i + 0.5))
            draw.ellipse([cx - 4, y0 + 5, cx + 4, y1 - 5], fill=plant_color)


def shed(draw, x: int, y: int, w: int, h: int, door_color) -> None:
    """A small shed with a pitched roof; the door fills the middle third."""
    draw.polygon([(x - 6, y), (x + w // 2, y - h // 3), (x + w + 6, y)], fill=(120, 60, 50))
    draw.rectangle([x, y, x + w, y + h], fill=(186, 150, 104), outline=DARK_WOOD, width=2)
    door_w = w // 3
    draw.rectangle([x + door_w, y + h // 4, x + 2 * door_w, y + h], fill=door_color, outline=BLACK)


def compost_bin(draw, x: int, y: int) -> None:
    draw.rectangle([x, y, x + 34, y + 40], fill=(28, 28, 28))
    draw.rectangle([x - 3, y - 6, x + 37, y], fill=(52, 52, 52))
    for vent_y in range(y + 8, y + 36, 8):
        draw.line([x + 6, vent_y, x + 28, vent_y], fill=(70, 70, 70), width=2)


def watering_can(draw, x: int, y: int, handle=None, stripe: bool = False) -> None:
    """A green can whose body starts at (x, y); only the handle or a stripe differ."""
    handle = handle or CAN_GREEN
    draw.polygon(
        [(x + 60, y + 20), (x + 92, y - 6), (x + 96, y - 2), (x + 64, y + 30)], fill=CAN_GREEN
    )
    draw.rectangle([x, y, x + 60, y + 60], fill=CAN_GREEN, outline=(30, 80, 40), width=2)
    draw.arc([x + 6, y - 28, x + 54, y + 16], start=180, end=360, fill=handle, width=7)
    if stripe:
        draw.rectangle([x + 2, y + 26, x + 58, y + 36], fill=WHITE)


def seed_jar(draw, x: int, y: int, label: str, seed_color, cracked: bool = False) -> None:
    draw.rounded_rectangle(
        [x, y, x + 56, y + 84], radius=8, fill=(214, 230, 236), outline=(120, 140, 150), width=2
    )
    draw.rectangle([x + 4, y + 30, x + 52, y + 80], fill=seed_color)
    draw.rectangle([x - 2, y - 12, x + 58, y + 2], fill=(184, 150, 60), outline=(120, 96, 40))
    if cracked:
        crack = [
            (x + 6, y - 10),
            (x + 18, y - 2),
            (x + 26, y - 11),
            (x + 38, y - 1),
            (x + 52, y - 9),
        ]
        draw.line(crack, fill=BLACK, width=2)
    draw.rectangle([x + 12, y + 40, x + 44, y + 62], fill=WHITE, outline=BLACK)
    centered_text(draw, x + 28, y + 42, label, 16, BLACK)


def seedling(draw, cx: int, base_y: int) -> None:
    draw.line([cx, base_y, cx, base_y - 14], fill=(60, 120, 50), width=2)
    draw.ellipse([cx - 9, base_y - 20, cx - 1, base_y - 12], fill=(80, 170, 70))
    draw.ellipse([cx + 1, base_y - 22, cx + 9, base_y - 14], fill=(80, 170, 70))


def seedling_tray(draw, columns: int, rows: int) -> None:
    x0, y0 = 160 - columns * 25, 120 - rows * 25
    draw.rectangle([x0 - 6, y0 - 6, x0 + columns * 50 + 6, y0 + rows * 50 + 6], fill=BLACK)
    for row in range(rows):
        for col in range(columns):
            cx, cy = x0 + col * 50, y0 + row * 50
            draw.rectangle([cx + 3, cy + 3, cx + 47, cy + 47], fill=SOIL, outline=(60, 60, 60))
            seedling(draw, cx + 25, cy + 40)


def chalkboard(draw, lines: list[str]) -> None:
    draw.rectangle([20, 16, 300, 224], fill=DARK_WOOD)
    draw.rectangle([30, 26, 290, 214], fill=(40, 72, 56))
    centered_text(draw, 160, 36, lines[0], 18, (236, 236, 226))
    for i, line in enumerate(lines[1:]):
        draw.text((70, 78 + i * 32), line, font=font(18), fill=(226, 226, 214))


def plot_marker(draw, tag_text: str, stake_color, tag_color, text_color) -> None:
    draw.rectangle([150, 40, 170, 230], fill=stake_color, outline=BLACK)
    draw.rectangle([100, 70, 220, 120], fill=tag_color, outline=BLACK, width=2)
    centered_text(draw, 160, 84, tag_text, 20, text_color)


def person(draw, x: int, y: int, shirt, umbrella=None) -> None:
    draw.ellipse([x - 7, y - 40, x + 7, y - 26], fill=(226, 186, 150))
    draw.rectangle([x - 8, y - 26, x + 8, y], fill=shirt)
    draw.rectangle([x - 7, y, x - 2, y + 18], fill=(50, 60, 90))
    draw.rectangle([x + 2, y, x + 7, y + 18], fill=(50, 60, 90))
    if umbrella:
        draw.pieslice([x - 22, y - 64, x + 22, y - 30], start=180, end=360, fill=umbrella)
        draw.line([x, y - 47, x, y - 20], fill=BLACK, width=2)


def rain(draw, seed: int, count: int = 140) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        x, y = rng.randrange(0, WIDTH), rng.randrange(0, HEIGHT)
        draw.line([x, y, x - 4, y + 12], fill=(200, 210, 230), width=1)


def puddles(draw, spots) -> None:
    for x, y in spots:
        draw.ellipse([x - 22, y - 5, x + 22, y + 5], fill=(120, 140, 160))


def car(draw, x: int, y: int, color) -> None:
    draw.rectangle([x, y + 14, x + 70, y + 34], fill=color)
    draw.polygon([(x + 14, y + 14), (x + 22, y), (x + 50, y), (x + 58, y + 14)], fill=color)
    draw.rectangle([x + 24, y + 3, x + 48, y + 13], fill=(190, 220, 240))
    for wheel_x in (x + 10, x + 48):
        draw.ellipse([wheel_x, y + 28, wheel_x + 14, y + 42], fill=BLACK)


def striped_awning(draw, x0: int, y0: int, x1: int, colors) -> None:
    for i, stripe_x in enumerate(range(x0, x1, 12)):
        draw.rectangle([stripe_x, y0, min(stripe_x + 12, x1), y0 + 22], fill=colors[i % 2])


def tomato(draw, cx: int, cy: int, radius: int = 8) -> None:
    draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=(214, 40, 36))
    draw.line([cx - 3, cy - radius, cx + 3, cy - radius], fill=(50, 130, 50), width=2)


def street_scene(draw) -> None:
    """Shared backdrop for the lot across the street (three different uses over time)."""
    draw.rectangle([0, 0, WIDTH, 90], fill=SKY)
    draw.rectangle([0, 90, WIDTH, 200], fill=(128, 128, 124))
    draw.rectangle([0, 200, WIDTH, HEIGHT], fill=(70, 70, 72))
    for x in range(0, WIDTH, 40):
        draw.rectangle([x, 218, x + 20, 222], fill=(230, 220, 120))


def garden_view(draw, door_color, compost_side: str | None) -> None:
    """View from the gate: back fence, six beds, the shed at the back right."""
    sky_and_grass(draw, 70)
    picket_fence(draw, 50, 96)
    shed(draw, 236, 64, 60, 58, door_color)
    for col in range(3):
        raised_bed(draw, [30 + col * 66, 130, 86 + col * 66, 156], plants=3)
        raised_bed(draw, [30 + col * 66, 180, 86 + col * 66, 206], plants=3)
    if compost_side == "left":
        compost_bin(draw, 12, 84)
    elif compost_side == "right":
        compost_bin(draw, 196, 84)
