"""Pillow drawings for the demo MemEye task (a community garden over eight weeks).

Each public ``draw_*`` function returns a 320x240 RGB image that carries the visual
evidence the questions need: the scene gist (X1), where things are (X2), look-alike
objects that differ in one detail (X3), and small text, exact colours and counts (X4).
``SCENES`` maps every image id used by the dialog to its drawing function.

Everything is deterministic: shapes come from fixed coordinates, the few "random"
elements (rain streaks, mud splashes) use ``random.Random`` with a fixed seed, and text
uses Pillow's built-in default font (``ImageFont.load_default(size=...)``).
"""

from __future__ import annotations

import random

from drawing import (
    BLACK,
    CAN_GREEN,
    DARK_WOOD,
    DOOR_FOREST_GREEN,
    DOOR_SKY_BLUE,
    DOOR_TERRACOTTA,
    GRASS,
    HEIGHT,
    RAIN_SKY,
    SKY,
    SOIL,
    WHITE,
    WIDTH,
    WOOD,
    car,
    centered_text,
    chalkboard,
    font,
    garden_view,
    new_canvas,
    person,
    picket_fence,
    plot_marker,
    puddles,
    rain,
    raised_bed,
    seed_jar,
    seedling,
    seedling_tray,
    sky_and_grass,
    street_scene,
    striped_awning,
    tomato,
    watering_can,
)
from PIL import Image, ImageDraw


def draw_garden_gate_view():
    image, draw = new_canvas(SKY)
    garden_view(draw, DOOR_FOREST_GREEN, None)
    draw.rectangle([96, 14, 224, 34], fill=WOOD, outline=DARK_WOOD)
    centered_text(draw, 160, 18, "WILLOW ST GARDEN", 12, WHITE)
    draw.rectangle([130, 212, 190, 240], outline=DARK_WOOD, width=3)  # the open gate
    return image


def draw_plot_marker(tag_text: str, muddy: bool = False, new_style: bool = False):
    def scene():
        image, draw = new_canvas(SOIL)
        draw.rectangle([0, 0, WIDTH, 40], fill=GRASS)
        if new_style:
            plot_marker(draw, tag_text, WHITE, (46, 140, 70), WHITE)
        else:
            plot_marker(draw, tag_text, WOOD, (176, 180, 186), BLACK)
        if muddy:
            puddles(draw, [(60, 200), (250, 190)])
            rng = random.Random(3)
            for _ in range(40):
                x, y = rng.randrange(100, 222), rng.randrange(120, 228)
                draw.ellipse([x - 3, y - 2, x + 3, y + 2], fill=(80, 56, 36))
        return image

    return scene


def draw_shed_door(door_color):
    def scene():
        image, draw = new_canvas((186, 150, 104))
        for y in range(0, HEIGHT, 16):
            draw.line([0, y, WIDTH, y], fill=(160, 124, 84), width=2)
        draw.rectangle([100, 30, 220, 240], fill=door_color, outline=BLACK, width=3)
        draw.rectangle([116, 48, 204, 130], outline=BLACK, width=2)
        draw.ellipse([196, 140, 208, 152], fill=(200, 180, 90))
        return image

    return scene


def draw_lot_parking():
    image, draw = new_canvas(SKY)
    street_scene(draw)
    for x in range(30, 300, 70):
        draw.line([x, 110, x, 190], fill=WHITE, width=3)
    car(draw, 40, 130, (180, 40, 40))
    car(draw, 180, 130, (40, 70, 160))
    car(draw, 250, 140, (220, 220, 220))
    draw.rectangle([0, 188, WIDTH, 200], fill=(150, 140, 130))  # low wall
    return image


def draw_lot_construction():
    image, draw = new_canvas(SKY)
    street_scene(draw)
    draw.rectangle([0, 120, WIDTH, 200], fill=(150, 112, 72))
    draw.rectangle([200, 120, 280, 150], fill=(236, 190, 40))  # digger body
    draw.line([210, 125, 160, 100, 140, 140], fill=(236, 190, 40), width=6)
    for x in range(10, 300, 50):
        draw.rectangle([x, 170, x + 40, 196], fill=(240, 120, 30), outline=BLACK)
        draw.rectangle([x, 178, x + 40, 184], fill=WHITE)
    return image


def draw_lot_market():
    image, draw = new_canvas(SKY)
    street_scene(draw)
    for i, x in enumerate(range(12, 300, 100)):
        colors = [(200, 50, 50), WHITE] if i % 2 == 0 else [(50, 140, 70), WHITE]
        striped_awning(draw, x, 100, x + 90, colors)
        draw.rectangle([x + 6, 122, x + 84, 160], fill=(170, 120, 70))
        for k in range(4):
            tomato(draw, x + 18 + k * 18, 134, 6)
    for x, shirt in ((60, (90, 90, 200)), (150, (200, 160, 60)), (250, (160, 60, 140))):
        person(draw, x, 196, shirt)
    return image


def draw_garden_map():
    image, draw = new_canvas((242, 232, 204))
    centered_text(draw, 160, 8, "GARDEN MAP", 14, BLACK)
    for row, labels in enumerate(("ABC", "DEF")):
        for col, label in enumerate(labels):
            x0, y0 = 30 + col * 70, 40 + row * 80
            draw.rectangle([x0, y0, x0 + 58, y0 + 56], outline=BLACK, width=2)
            centered_text(draw, x0 + 29, y0 + 18, label, 18, BLACK)
    draw.rectangle([240, 40, 300, 96], fill=(210, 190, 150), outline=BLACK, width=2)
    centered_text(draw, 270, 60, "SHED", 12, BLACK)
    draw.rectangle([130, 212, 190, 232], outline=BLACK, width=2)
    centered_text(draw, 160, 216, "GATE", 11, BLACK)
    return image


def draw_workday_rain():
    image, draw = new_canvas(RAIN_SKY)
    sky_and_grass(draw, 90, sky=RAIN_SKY)
    raised_bed(draw, [20, 120, 140, 150])
    raised_bed(draw, [180, 120, 300, 150])
    umbrellas = [(200, 60, 60), (60, 90, 200), (230, 190, 50)]
    for i, x in enumerate((60, 160, 250)):
        person(draw, x, 196, (90, 120, 90), umbrella=umbrellas[i])
    puddles(draw, [(110, 225), (220, 228)])
    rain(draw, seed=11)
    return image


def draw_compost(side: str):
    def scene():
        image, draw = new_canvas(SKY)
        garden_view(draw, DOOR_FOREST_GREEN if side == "left" else DOOR_SKY_BLUE, side)
        return image

    return scene


def draw_shed_shelves():
    image, draw = new_canvas((120, 92, 64))
    for y in (78, 146, 214):  # top, middle and bottom shelf boards
        draw.rectangle([14, y, 306, y + 8], fill=(196, 160, 112), outline=DARK_WOOD)
    for x in range(34, 290, 64):  # top shelf: clay pots
        draw.polygon([(x, 40), (x + 36, 40), (x + 30, 78), (x + 6, 78)], fill=(196, 106, 70))
    for x in (40, 130, 220):  # middle shelf: the three shared cans, small
        draw.rectangle([x, 112, x + 40, 146], fill=CAN_GREEN)
        draw.line([x + 40, 120, x + 56, 104], fill=CAN_GREEN, width=5)
    draw.rounded_rectangle([110, 168, 210, 214], radius=8, fill=(200, 160, 90))  # basket
    for x, color in ((120, (240, 200, 40)), (150, (230, 90, 60)), (180, (240, 200, 40))):
        draw.rectangle([x, 156, x + 16, 176], fill=color)  # gloves sticking out
    return image


def draw_watering_cans():
    image, draw = new_canvas((220, 210, 190))
    draw.rectangle([0, 170, WIDTH, HEIGHT], fill=(160, 130, 100))
    watering_can(draw, 8, 104)  # left: plain
    watering_can(draw, 114, 104, handle=(240, 200, 30))  # middle: yellow handle
    watering_can(draw, 216, 104, stripe=True)  # right: white stripe
    return image


def draw_single_striped_can():
    image, draw = new_canvas(GRASS)
    raised_bed(draw, [10, 170, 310, 220], plants=6)
    watering_can(draw, 110, 80, stripe=True)
    return image


def draw_tomato_tray(columns: int, rows: int):
    def scene():
        image, draw = new_canvas((200, 200, 196))
        seedling_tray(draw, columns, rows)
        return image

    return scene


def draw_rota(lines: list[str]):
    def scene():
        image, _ = new_canvas((210, 200, 180))
        chalkboard(ImageDraw.Draw(image), lines)
        return image

    return scene


def draw_seed_jars(labels: list[str], cracked_label: str | None, backdrop):
    seed_colors = [(150, 110, 60), (220, 200, 120), (90, 60, 40), (190, 150, 90)]

    def scene():
        image, draw = new_canvas(backdrop)
        draw.rectangle([0, 170, WIDTH, HEIGHT], fill=(150, 110, 70))
        for i, label in enumerate(labels):
            seed_jar(draw, 16 + i * 76, 84, label, seed_colors[i], cracked=label == cracked_label)
        return image

    return scene


def draw_seedswap_awning():
    image, draw = new_canvas(RAIN_SKY)
    draw.rectangle([0, 40, WIDTH, 200], fill=(200, 180, 160))  # hall wall
    striped_awning(draw, 20, 70, 300, [(60, 120, 180), WHITE])
    draw.rectangle([130, 110, 190, 200], fill=(110, 80, 60))  # hall door
    draw.rectangle([0, 200, WIDTH, HEIGHT], fill=(110, 110, 112))
    for x, shirt in (
        (50, (200, 90, 90)),
        (100, (90, 160, 90)),
        (230, (90, 90, 180)),
        (275, (200, 170, 70)),
    ):
        person(draw, x, 186, shirt)
    puddles(draw, [(80, 226), (240, 230)])
    rain(draw, seed=17)
    return image


def draw_bean_packet():
    image, draw = new_canvas((214, 226, 200))
    draw.rectangle([70, 14, 250, 226], fill=(250, 244, 226), outline=BLACK, width=2)
    centered_text(draw, 160, 24, "GREEN BEANS", 18, (40, 110, 50))
    for i in range(5):  # bean pods
        x = 100 + i * 24
        draw.rounded_rectangle([x, 70, x + 12, 170], radius=6, fill=(70, 150, 60))
    # The lot number is deliberately tiny: the perception (X4) case.
    draw.text((196, 210), "LOT B-27", font=font(7), fill=(70, 70, 70))
    return image


def draw_tomato_bed(plant_count: int, staked: bool):
    def scene():
        image, draw = new_canvas(GRASS)
        draw.rectangle([6, 110, 314, 200], fill=WOOD, outline=DARK_WOOD, width=2)
        draw.rectangle([12, 116, 308, 194], fill=SOIL)
        step = 296 / plant_count
        for i in range(plant_count):
            cx = int(12 + step * (i + 0.5))
            if staked:
                draw.rectangle([cx + 6, 60, cx + 9, 170], fill=(190, 160, 110))
                draw.ellipse([cx - 10, 90, cx + 8, 150], fill=(60, 140, 60))
            else:
                seedling(draw, cx, 160)
        return image

    return scene


def draw_sunflowers():
    image, draw = new_canvas(SKY)
    sky_and_grass(draw, 180)
    picket_fence(draw, 130, 190)
    for x in range(30, 320, 60):
        draw.line([x, 200, x, 50], fill=(60, 130, 50), width=5)
        draw.ellipse([x - 22, 28, x + 22, 72], fill=(246, 196, 30))
        draw.ellipse([x - 9, 41, x + 9, 59], fill=(110, 70, 30))
    return image


def draw_plot_harvest():
    image, draw = new_canvas(GRASS)
    raised_bed(draw, [10, 60, 310, 220])
    for i in range(9):
        cx = 36 + i * 32
        draw.ellipse([cx - 14, 90, cx + 14, 180], fill=(54, 128, 54))
        tomato(draw, cx - 4, 120)
        tomato(draw, cx + 6, 150)
    return image


def draw_tomato_basket():
    image, draw = new_canvas((232, 222, 200))
    draw.rounded_rectangle([50, 110, 270, 220], radius=20, fill=(196, 150, 84))
    draw.arc([90, 30, 230, 170], start=180, end=360, fill=(150, 110, 60), width=8)
    for row, y in enumerate((110, 126)):
        for x in range(74 + row * 10, 250, 24):
            tomato(draw, x, y, 11)
    return image


ROTA_BEFORE = ["WATERING ROTA", "BEN    SAT", "MAYA   TUE", "LIN    THU", "OMAR   SUN"]
ROTA_AFTER = ["WATERING ROTA", "BEN    TUE", "MAYA   SAT", "LIN    THU", "OMAR   SUN"]
JAR_TABLE = (226, 214, 196)
LIBRARY_WALL = (196, 206, 214)

SCENES = {
    "garden_gate_view": draw_garden_gate_view,
    "plot_marker_14": draw_plot_marker("PLOT 14"),
    "shed_door_green": draw_shed_door(DOOR_FOREST_GREEN),
    "lot_parking": draw_lot_parking,
    "garden_map": draw_garden_map,
    "workday_rain": draw_workday_rain,
    "compost_left": draw_compost("left"),
    "shed_shelves": draw_shed_shelves,
    "watering_cans": draw_watering_cans,
    "tomato_tray_6": draw_tomato_tray(3, 2),
    "rota_tue": draw_rota(ROTA_BEFORE),
    "plot_marker_14_muddy": draw_plot_marker("PLOT 14", muddy=True),
    "tomato_tray_4": draw_tomato_tray(2, 2),
    "seed_jars_1_4": draw_seed_jars(["1", "2", "3", "4"], "3", JAR_TABLE),
    "seedswap_awning": draw_seedswap_awning,
    "shed_door_blue": draw_shed_door(DOOR_SKY_BLUE),
    "bean_packet": draw_bean_packet,
    "seed_jars_5_8": draw_seed_jars(["5", "6", "7", "8"], None, LIBRARY_WALL),
    "tomato_bed": draw_tomato_bed(10, staked=False),
    "compost_right": draw_compost("right"),
    "can_stripe": draw_single_striped_can,
    "lot_construction": draw_lot_construction,
    "seed_jars_9_12": draw_seed_jars(["9", "10", "11", "12"], None, JAR_TABLE),
    "plot_marker_23": draw_plot_marker("PLOT 23", new_style=True),
    "rota_sat": draw_rota(ROTA_AFTER),
    "tomatoes_staked": draw_tomato_bed(9, staked=True),
    "seed_jars_13_16": draw_seed_jars(["13", "14", "15", "16"], None, LIBRARY_WALL),
    "shed_door_terracotta": draw_shed_door(DOOR_TERRACOTTA),
    "sunflowers": draw_sunflowers,
    "lot_market": draw_lot_market,
    "plot_harvest": draw_plot_harvest,
    "tomato_basket": draw_tomato_basket,
}


def render(image_id: str) -> Image.Image:
    return SCENES[image_id]()
